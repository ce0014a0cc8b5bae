import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { rawRequest } from '../helpers/http.js';
import { findEvent as findByRequestId, json, startTestService, type ListedEvent as Item, type TestService } from '../helpers/service.js';

function* chunksOf(total: number, size: number): Generator<Buffer> {
    for (let sent = 0; sent < total; sent += size) yield Buffer.alloc(Math.min(size, total - sent), 0x61);
}

describe('payload size limits and offload', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { maxPayloadSize: 8 * 1024 * 1024 } });
    });
    afterAll(() => svc.close());

    it('refuses a declared Content-Length above the limit with 413 and stores the refusal', async () => {
        const res = await rawRequest(`${svc.url}/webhook/${svc.webhookId}`, {
            headers: { 'content-length': String(9 * 1024 * 1024) },
            chunks: chunksOf(64 * 1024, 64 * 1024),
        });
        assert.equal(res.status, 413);
        const body = JSON.parse(res.body.toString()) as Record<string, unknown>;
        assert.equal(body.error, 'Payload Too Large');
        assert.equal(body.limit, 8 * 1024 * 1024);
        const item = await findByRequestId(svc, res.headers['x-request-id']);
        assert.equal(item.statusCode, 413);
        assert.equal(item.size, 9 * 1024 * 1024);
    });

    it('stops a chunked body at the limit while streaming, and the sender reads its 413 (regression: reset before the answer)', async () => {
        const res = await rawRequest(`${svc.url}/webhook/${svc.webhookId}`, { chunks: chunksOf(20 * 1024 * 1024, 256 * 1024) });
        assert.equal(res.status, 413);
        const item = await findByRequestId(svc, res.headers['x-request-id']);
        assert.equal(item.statusCode, 413);
        assert.ok(item.size > 8 * 1024 * 1024 && item.size < 20 * 1024 * 1024, `stopped early at ${item.size} bytes`);
    });

    it('streams a body above 5 MB to the key-value store and serves it back byte-exact', async () => {
        const bytes = randomBytes(6 * 1024 * 1024 + 123);
        const res = await rawRequest(`${svc.url}/webhook/${svc.webhookId}`, {
            headers: { 'content-type': 'application/pdf' },
            chunks: (function* () {
                for (let i = 0; i < bytes.length; i += 300_000) yield bytes.subarray(i, i + 300_000);
            })(),
        });
        assert.equal(res.status, 200);
        const item = await findByRequestId(svc, res.headers['x-request-id']);
        const entry = await json(await svc.fetch(`/logs/${item.id}`));
        assert.deepEqual(entry.body, { offloaded: true, key: `payload-${item.id}`, size: bytes.length });
        const payload = await svc.fetch(`/logs/${item.id}/payload`);
        assert.equal(payload.headers.get('content-type'), 'application/pdf');
        const back = Buffer.from(await payload.arrayBuffer());
        assert.equal(createHash('sha256').update(back).digest('hex'), createHash('sha256').update(bytes).digest('hex'));
        const metrics = await json<{ storage: { offloadedPayloads: number } }>(await svc.fetch('/system/metrics'));
        assert.equal(metrics.storage.offloadedPayloads, 1);
    });

    it('accepts a body exactly at the limit', async () => {
        const res = await rawRequest(`${svc.url}/webhook/${svc.webhookId}`, { chunks: chunksOf(8 * 1024 * 1024, 1024 * 1024) });
        assert.equal(res.status, 200);
    });
});

describe('responseDelayMs', () => {
    let svc: TestService;
    const clock = new ManualClock();
    beforeAll(async () => {
        svc = await startTestService({ input: { responseDelayMs: 10_000 }, clock });
    });
    afterAll(() => svc.close());

    it('holds the answer until the injected clock passes the delay, without counting the delay in processingTime', async () => {
        let answered = false;
        const pending = svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'slow' }).then((res) => {
            answered = true;
            return res;
        });
        await clock.whenSleeping(1);
        // A full round trip on another connection: an answer that was not held would have arrived by now.
        await (await svc.fetch('/health')).text();
        assert.equal(answered, false, 'held while the delay runs');
        clock.advance(9_999);
        await (await svc.fetch('/health')).text();
        assert.equal(answered, false, 'still held 1 ms before the delay ends');
        assert.equal(clock.pendingSleeps, 1);
        clock.advance(1);
        const res = await pending;
        assert.equal(res.status, 200);
        const item = await findByRequestId(svc, res.headers.get('x-request-id'));
        const entry = await json<{ processingTime: number }>(await svc.fetch(`/logs/${item.id}`));
        // The clock's monotonic time includes the 10 s advanced: a delay counted in processingTime would show.
        assert.ok(entry.processingTime < 5_000, `processingTime ${entry.processingTime} excludes the delay`);
    });
});

describe('access control and validation', () => {
    let svc: TestService;
    const key = 'sekret-key-123';
    beforeAll(async () => {
        svc = await startTestService({
            input: {
                authKey: key,
                rateLimitPerMinute: 1000,
                jsonSchema: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } },
                redactBodyPaths: ['body.card.number'],
            },
            overrides: { ingestLimitPerMinute: 1000 },
        });
    });
    afterAll(() => svc.close());
    const auth = { authorization: `Bearer ${key}` };

    it('answers 401 without the key on protected routes and ingest', async () => {
        for (const path of ['/', '/info', '/logs', '/logs/x', '/logs/x/payload', '/system/metrics', `/webhook/${svc.webhookId}`]) {
            const res = await svc.fetch(path);
            assert.equal(res.status, 401, path);
            const body = await json(res);
            assert.equal(body.error, 'Unauthorized');
            assert.equal(body.message, 'Missing or invalid authentication key');
        }
        assert.equal((await svc.fetch('/info', { headers: { authorization: 'Bearer wrong' } })).status, 401);
    });

    it('accepts the key as a Bearer header or a key query parameter, and keeps probes open', async () => {
        assert.equal((await svc.fetch('/info', { headers: auth })).status, 200);
        assert.equal((await svc.fetch(`/info?key=${key}`)).status, 200);
        assert.equal((await svc.fetch('/health')).status, 200);
        assert.equal((await svc.fetch('/ready')).status, 200);
    });

    it('masks credentials, the key parameter and redacted body paths before storage', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}?key=${key}&x=1`, {
            method: 'POST',
            headers: { cookie: 'session=abc', 'x-api-key': 'k', 'content-type': 'application/json' },
            body: JSON.stringify({ id: 7, card: { number: '4242424242424242', brand: 'visa' } }),
        });
        assert.equal(res.status, 200);
        const item: Item = await findByRequestId(svc, res.headers.get('x-request-id'), { headers: auth });
        const entry = await json<Record<string, Record<string, unknown>>>(await svc.fetch(`/logs/${item.id}`, { headers: auth }));
        assert.equal(entry.headers!.cookie, '[REDACTED]');
        assert.equal(entry.headers!['x-api-key'], '[REDACTED]');
        assert.equal(entry.query!.key, '[REDACTED]');
        assert.equal(String(entry.requestUrl).includes(key), false);
        assert.deepEqual(entry.body, { id: 7, card: { number: '[REDACTED]', brand: 'visa' } });
        const raw = await (await svc.fetch(`/logs/${item.id}/payload`, { headers: auth })).text();
        assert.equal(raw.includes('4242424242424242'), false, 'the secret is not kept anywhere');
    });

    it('answers 400 with details for a payload failing the JSON Schema, and stores it', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"id":"nope"}' });
        assert.equal(res.status, 400);
        const body = await json<{ details: { path: string; message: string }[] }>(res);
        assert.equal(body.details[0]!.path, '/id');
        assert.equal((await findByRequestId(svc, res.headers.get('x-request-id'), { headers: auth })).statusCode, 400);
    });
});
