import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';

type Entry = Record<string, unknown> & { id: string; body: unknown; headers: Record<string, string>; query: Record<string, unknown> };

/** Sends one request and returns the stored entry for it (found through its X-Request-Id). */
async function capture(svc: TestService, path: string, init: RequestInit): Promise<{ res: Response; text: string; entry: Entry }> {
    const res = await svc.fetch(path, init);
    const text = await res.text();
    assert.ok(res.headers.get('x-request-id'), 'every answer carries X-Request-Id');
    const item = await findEvent(svc, res.headers.get('x-request-id'));
    const entry = await json<Entry>(await svc.fetch(`/logs/${item.id}`));
    return { res, text, entry };
}

describe('capture on ANY /webhook/:id', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 2 } });
    });
    afterAll(() => svc.close());

    it('records the full envelope of a JSON POST', async () => {
        const body = '{"event":"order.created","data":{"id":42,"tags":["a","b"]}}';
        const { res, text, entry } = await capture(svc, `/webhook/${svc.webhookId}?source=shop&x=1&x=2`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'Shopify-Captain-Hook', 'x-custom': 'yes' },
            body,
        });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
        assert.equal(text, 'OK');
        assert.equal(entry.webhookId, svc.webhookId);
        assert.equal(entry.method, 'POST');
        assert.equal(entry.statusCode, 200);
        assert.equal(entry.size, Buffer.byteLength(body));
        assert.equal(typeof entry.processingTime, 'number');
        assert.ok((entry.processingTime as number) >= 0);
        assert.equal(entry.requestId, res.headers.get('x-request-id'));
        assert.equal(entry.requestUrl, `/webhook/${svc.webhookId}?source=shop&x=1&x=2`);
        assert.equal(entry.contentType, 'application/json');
        assert.equal(entry.remoteIp, '127.0.0.1');
        assert.equal(entry.userAgent, 'Shopify-Captain-Hook');
        assert.equal(entry.headers['x-custom'], 'yes');
        assert.deepEqual(entry.query, { source: 'shop', x: ['1', '2'] });
        assert.deepEqual(entry.body, { event: 'order.created', data: { id: 42, tags: ['a', 'b'] } });
        assert.equal((entry.responseHeaders as Record<string, string>)['Content-Type'], 'text/plain; charset=utf-8');
        assert.equal(entry.responseBody, 'OK');
        assert.equal(entry.signatureValid, null);
        assert.ok(!Number.isNaN(Date.parse(entry.timestamp as string)));
    });

    const kinds: [string, string, Buffer, 'object' | 'string' | 'base64'][] = [
        ['JSON', 'application/json', Buffer.from('{\n  "pretty": true,\n  "n": 1.50\n}'), 'object'],
        ['plain text', 'text/plain', Buffer.from('hello\r\nworld\u00e9'), 'string'],
        ['form', 'application/x-www-form-urlencoded', Buffer.from('a=1&b=%20two&c='), 'string'],
        ['XML', 'application/xml', Buffer.from('<?xml version="1.0"?><note><to>T</to></note>'), 'string'],
        ['binary', 'application/octet-stream', Buffer.concat([Buffer.from([0, 255, 254, 1]), randomBytes(2048)]), 'base64'],
        ['malformed JSON', 'application/json', Buffer.from('{"broken": tru'), 'string'],
    ];
    for (const [name, type, bytes, shape] of kinds) {
        it(`keeps ${name} bodies byte-exact`, async () => {
            const { entry } = await capture(svc, `/webhook/${svc.webhookId}`, { method: 'PUT', headers: { 'content-type': type }, body: bytes });
            assert.equal(entry.size, bytes.length);
            if (shape === 'object') assert.equal(typeof entry.body, 'object');
            if (shape === 'string') assert.equal(entry.body, bytes.toString('utf8'));
            if (shape === 'base64') {
                assert.equal(entry.bodyEncoding, 'base64');
                assert.deepEqual(Buffer.from(entry.body as string, 'base64'), bytes);
            }
            const payload = await svc.fetch(`/logs/${entry.id}/payload`);
            assert.equal(payload.status, 200);
            assert.equal(payload.headers.get('content-type'), type);
            assert.deepEqual(Buffer.from(await payload.arrayBuffer()), bytes);
        });
    }

    it('records the JSON parse error of malformed JSON', async () => {
        const { entry } = await capture(svc, `/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
        assert.match(String((entry.meta as Record<string, unknown>).jsonParseError), /JSON/);
    });

    for (const method of ['GET', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD']) {
        it(`captures ${method}`, async () => {
            const res = await svc.fetch(`/webhook/${svc.webhookId}?m=${method}`, { method });
            assert.equal(res.status, 200);
            assert.equal((await findEvent(svc, res.headers.get('x-request-id'))).method, method);
        });
    }

    it('answers a CORS preflight and captures it', async () => {
        const { res, entry } = await capture(svc, `/webhook/${svc.webhookId}?preflight=1`, {
            method: 'OPTIONS',
            headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-signature' },
        });
        assert.equal(res.headers.get('access-control-allow-origin'), '*');
        assert.match(res.headers.get('access-control-allow-methods') ?? '', /PUT/);
        assert.equal(res.headers.get('access-control-allow-headers'), 'x-signature');
        // The capture: the preflight itself, as sent, and the answer it got.
        assert.equal(entry.webhookId, svc.webhookId);
        assert.equal(entry.method, 'OPTIONS');
        assert.equal(entry.statusCode, res.status);
        assert.equal(entry.requestUrl, `/webhook/${svc.webhookId}?preflight=1`);
        assert.equal(entry.headers.origin, 'https://app.example');
        assert.equal(entry.headers['access-control-request-method'], 'PUT');
        assert.equal(entry.headers['access-control-request-headers'], 'x-signature');
        const sent = Object.fromEntries(Object.entries(entry.responseHeaders as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
        assert.equal(sent['access-control-allow-origin'], '*', 'the stored answer carries the CORS headers that were sent');
    });

    it('captures sub-paths of a webhook', async () => {
        const { entry } = await capture(svc, `/webhook/${svc.webhookId}/stripe/events`, { method: 'POST', body: 'x' });
        assert.equal(entry.requestUrl, `/webhook/${svc.webhookId}/stripe/events`);
    });

    it('answers 404 for an unknown webhook and stores nothing', async () => {
        const before = await json<{ total: number }>(await svc.fetch('/logs?limit=1'));
        const res = await svc.fetch('/webhook/wh_doesnotexist', { method: 'POST', body: 'x' });
        assert.equal(res.status, 404);
        const body = await json(res);
        assert.equal(body.error, 'Not Found');
        // A captured request afterwards is answered only after its commit, in order: a late commit of the 404 would show.
        await capture(svc, `/webhook/${svc.webhookId}`, { method: 'POST', body: 'barrier' });
        const afterList = await json<{ total: number }>(await svc.fetch('/logs?limit=1'));
        assert.equal(afterList.total, before.total + 1);
    });

    it('answers 404 JSON for an unknown log id', async () => {
        const res = await svc.fetch('/logs/nope');
        assert.equal(res.status, 404);
        assert.equal((await json(res)).status, 404);
    });
});

describe('__status and the default answer', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService();
    });
    afterAll(() => svc.close());

    it('overrides the status and turns the default body into a JSON message at >= 400', async () => {
        const { res, text, entry } = await capture(svc, `/webhook/${svc.webhookId}?__status=503`, { method: 'POST', body: 'x' });
        assert.equal(res.status, 503);
        assert.deepEqual(JSON.parse(text), { message: 'Webhook received with status 503', webhookId: svc.webhookId });
        assert.equal(entry.statusCode, 503);
        assert.deepEqual(entry.responseBody, { message: 'Webhook received with status 503', webhookId: svc.webhookId });
    });

    it('keeps the plain body for a 2xx override', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}?__status=202`, { method: 'POST', body: 'x' });
        assert.equal(res.status, 202);
        assert.equal(await res.text(), 'OK');
    });

    it('sends no body for 204', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}?__status=204`, { method: 'POST', body: 'x' });
        assert.equal(res.status, 204);
        assert.equal(await res.text(), '');
    });

    for (const bad of ['abc', '99', '600', '2000', '20.5', '']) {
        it(`refuses __status=${bad} with 400 and stores the request`, async () => {
            const { res, text, entry } = await capture(svc, `/webhook/${svc.webhookId}?__status=${bad}`, { method: 'POST', body: 'kept' });
            assert.equal(res.status, 400);
            assert.match(JSON.parse(text).message, /__status/);
            assert.equal(entry.statusCode, 400);
            assert.equal(entry.body, 'kept');
        });
    }
});

describe('configured default answer', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({
            input: { defaultResponseCode: 201, defaultResponseBody: '{"received":true}', defaultResponseHeaders: { 'X-Mock': 'yes' }, enableJSONParsing: false },
        });
    });
    afterAll(() => svc.close());

    it('uses the configured status, body and headers', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('x-mock'), 'yes');
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(await res.text(), '{"received":true}');
    });

    it('keeps a configured non-default body on error statuses', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}?__status=500`, { method: 'POST', body: 'x' });
        assert.equal(res.status, 500);
        assert.equal(await res.text(), '{"received":true}');
    });

    it('stores JSON as text when enableJSONParsing is off', async () => {
        const { entry } = await capture(svc, `/webhook/${svc.webhookId}`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
        assert.equal(entry.body, '{"a":1}');
    });
});
