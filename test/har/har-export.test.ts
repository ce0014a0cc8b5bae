import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { HAR_SCHEMA } from './har-schema.js';

interface HarNameValue { name: string; value: string }
interface Har {
    log: {
        version: string;
        creator: { name: string; version: string };
        entries: {
            startedDateTime: string;
            request: { method: string; url: string; headers: HarNameValue[]; queryString: HarNameValue[]; cookies: HarNameValue[]; bodySize: number; postData?: { mimeType: string; text: string; _encoding?: string; _payloadUrl?: string } };
            response: { status: number; statusText: string; content: { text: string; mimeType: string } };
            _id: string;
        }[];
    };
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(HAR_SCHEMA);
const OFFLOAD = 4096;
// Deliberately not what JSON.stringify would write: the export must carry the bytes as received.
const JSON_TEXT = '{ "order" : 42,\n  "items": [1.50, "x"] }';
const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x41, 0x00, 0x80]);
const TEXT_WITH_NUL = Buffer.from('a\u0000b', 'utf8');
const BIG = Buffer.alloc(OFFLOAD * 3, 'z');

describe('GET /logs?format=har', () => {
    let svc: TestService;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
        svc = await startTestService({ input: { enableJSONParsing: true, rateLimitPerMinute: 0 }, overrides: { offloadThreshold: OFFLOAD } });
        const send = async (name: string, path: string, init: RequestInit): Promise<void> => {
            const res = await svc.fetch(`/webhook/${svc.webhookId}${path}`, init);
            await res.arrayBuffer();
            ids[name] = res.headers.get('x-request-id') ?? '';
        };
        await send('json', '?a=1&a=2&b=x', { method: 'POST', body: JSON_TEXT, headers: { 'content-type': 'application/json', cookie: 'sid=abc; theme=dark', 'x-custom': 'yes' } });
        await send('binary', '', { method: 'PUT', body: BINARY, headers: { 'content-type': 'application/octet-stream' } });
        await send('nul', '', { method: 'POST', body: TEXT_WITH_NUL, headers: { 'content-type': 'text/plain' } });
        await send('big', '', { method: 'POST', body: BIG, headers: { 'content-type': 'text/plain' } });
        await send('empty', '/sub/path?q=%20space', { method: 'GET' });
        // Request ids → log ids.
        const list = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs'));
        for (const [name, requestId] of Object.entries(ids)) ids[name] = list.items.find((i) => i.requestId === requestId)?.id ?? '';
    });
    afterAll(() => svc.close());

    const getHar = async (query = ''): Promise<Har> => {
        const res = await svc.fetch(`/logs?format=har${query}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const har = await json<Har>(res);
        assert.ok(validate(har), JSON.stringify(validate.errors));
        return har;
    };
    const entryOf = (har: Har, name: string) => {
        const e = har.log.entries.find((x) => x._id === ids[name]);
        assert.ok(e, `no HAR entry for ${name}`);
        return e;
    };

    it('is a HAR 1.2 document with every required field, one entry per event, newest first', async () => {
        const har = await getHar();
        expect(har.log.version).toBe('1.2');
        expect(har.log.creator.name).toBe('webhook-debugger');
        expect(har.log.entries).toHaveLength(5);
        const times = har.log.entries.map((e) => e.startedDateTime);
        expect([...times].sort().reverse()).toEqual(times);
    });

    it('carries the request: absolute URL, headers, repeated query keys, cookies and the body as received', async () => {
        const e = entryOf(await getHar(), 'json');
        expect(e.request.method).toBe('POST');
        expect(e.request.url).toBe(`${svc.deps.baseUrl()}/webhook/${svc.webhookId}?a=1&a=2&b=x`);
        expect(e.request.queryString).toEqual([{ name: 'a', value: '1' }, { name: 'a', value: '2' }, { name: 'b', value: 'x' }]);
        expect(e.request.headers).toContainEqual({ name: 'x-custom', value: 'yes' });
        expect(e.request.postData).toEqual({ mimeType: 'application/json', text: JSON_TEXT });
        expect(e.request.bodySize).toBe(Buffer.byteLength(JSON_TEXT));
        // maskSensitiveData is on by default: the cookie header is redacted, so no cookies are listed.
        expect(e.request.cookies).toEqual([]);
        expect(e.response.status).toBe(200);
        expect(e.response.statusText).toBe('OK');
        expect(e.response.content.text).toBe('OK');
    });

    it('puts a binary body (not UTF-8, or holding NUL) in base64 with _encoding', async () => {
        const har = await getHar();
        const bin = entryOf(har, 'binary').request.postData;
        expect(bin?._encoding).toBe('base64');
        expect(Buffer.from(bin?.text ?? '', 'base64')).toEqual(BINARY);
        const nul = entryOf(har, 'nul').request.postData;
        expect(nul?._encoding).toBe('base64');
        expect(Buffer.from(nul?.text ?? '', 'base64')).toEqual(TEXT_WITH_NUL);
    });

    it('links an offloaded body through _payloadUrl with its true size, and the link serves the bytes', async () => {
        const e = entryOf(await getHar(), 'big');
        expect(e.request.bodySize).toBe(BIG.length);
        expect(e.request.postData?.text).toBe('');
        const url = e.request.postData?._payloadUrl ?? '';
        expect(url).toBe(`${svc.deps.baseUrl()}/logs/${ids.big}/payload`);
        expect(Buffer.from(await (await fetch(url)).arrayBuffer())).toEqual(BIG);
    });

    it('has no postData for an empty body and keeps the sub-path and encoded query', async () => {
        const e = entryOf(await getHar(), 'empty');
        expect(e.request.postData).toBeUndefined();
        expect(e.request.bodySize).toBe(0);
        expect(e.request.url).toBe(`${svc.deps.baseUrl()}/webhook/${svc.webhookId}/sub/path?q=%20space`);
        expect(e.request.queryString).toEqual([{ name: 'q', value: ' space' }]);
    });

    it('answers the same filters, sort and limit as the list', async () => {
        const har = await getHar('&method=POST&sort=size:asc&limit=2');
        expect(har.log.entries.map((e) => e._id)).toEqual([ids.nul, ids.json]);
        const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs?method=POST&sort=size:asc&limit=2'));
        expect(list.items.map((i) => i.id)).toEqual([ids.nul, ids.json]);
        expect((await getHar('&body=order')).log.entries.map((e) => e._id)).toEqual([ids.json]);
    });

    it('refuses an unknown format and bad filters with 400 JSON', async () => {
        const bad = await svc.fetch('/logs?format=xml');
        expect(bad.status).toBe(400);
        expect((await json(bad)).message).toMatch(/format/);
        expect((await svc.fetch('/logs?format=har&nope=1')).status).toBe(400);
        expect((await svc.fetch('/logs?format=json&limit=1')).status).toBe(200);
    });
});

describe('GET /logs?format=har with authKey', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: 'sekret', rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    it('needs the key like every /logs call', async () => {
        expect((await svc.fetch('/logs?format=har')).status).toBe(401);
        const ok = await svc.fetch('/logs?format=har&key=sekret');
        expect(ok.status).toBe(200);
        assert.ok(validate(await ok.json()));
    });
});
