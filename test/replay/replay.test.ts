import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from './receiver.js';

let svc: TestService;
let target: Receiver;

/** A replay edit is JSON, and says so (the API refuses other bodies with 415). */
const JSON_TYPE = { 'content-type': 'application/json' };
const replayUrl = (logId: string, url: string | null, webhookId = svc.webhookId): string =>
    `/replay/${webhookId}/${encodeURIComponent(logId)}${url === null ? '' : `?url=${encodeURIComponent(url)}`}`;

/** Sends a capture and returns its log id. */
async function capture(init: RequestInit & { path?: string } = {}): Promise<string> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}${init.path ?? ''}`, { method: 'POST', ...init });
    expect(res.status).toBeLessThan(500);
    const requestId = res.headers.get('x-request-id');
    const list = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs?limit=50'));
    const item = list.items.find((i) => i.requestId === requestId);
    if (!item) throw new Error('capture not stored');
    return item.id;
}

beforeAll(async () => {
    target = await startReceiver((req, res) => res.writeHead(201, { 'Content-Type': 'text/plain' }).end(`got ${req.method}`));
    svc = await startTestService({
        input: { rateLimitPerMinute: 0, replayMaxRetries: 3, replayTimeoutMs: 2000 },
        env: { SSRF_ALLOWLIST: '127.0.0.1' },
        overrides: { offloadThreshold: 4096 },
    });
});
afterAll(async () => {
    await svc?.close();
    await target?.close();
});

describe('POST /replay/:webhookId/:itemId', () => {
    it('sends the captured method and body byte-exact, strips masked and transport headers, adds the tracing headers', async () => {
        const body = '{"b": 2,   "a":[1, 2.50, "\\u00e9"]}\n';
        const logId = await capture({ method: 'PUT', body, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer secret', Cookie: 'sid=1', 'X-Custom': 'kept' } });
        const res = await svc.fetch(replayUrl(logId, `${target.url}/hook?x=1`), { method: 'POST' });
        const answer = await json(res);
        expect(res.status).toBe(200);
        const got = target.requests.at(-1)!;
        expect(got.method).toBe('PUT');
        expect(got.url).toBe('/hook?x=1');
        expect(got.body.toString('utf8')).toBe(body);
        expect(got.headers['content-type']).toBe('application/json');
        expect(got.headers['x-custom']).toBe('kept');
        expect(got.headers.authorization).toBeUndefined();
        expect(got.headers.cookie).toBeUndefined();
        expect(got.headers['x-service-replay']).toBe('true');
        expect(got.headers['x-original-webhook-id']).toBe(svc.webhookId);
        expect(got.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
        expect(got.headers['user-agent']).toBe('node');
        expect(answer).toMatchObject({ status: 'replayed', targetUrl: `${target.url}/hook?x=1`, targetResponseCode: 201, targetResponseBody: 'got PUT', resigned: false });
        expect(answer.strippedHeaders).toEqual(expect.arrayContaining(['host', 'content-length', 'authorization', 'cookie']));
        expect(answer.strippedHeaders).not.toContain('x-custom');
    });

    it('replays a capture without a body (GET, HEAD, an empty POST) at once, not after a timeout', async () => {
        for (const method of ['GET', 'HEAD', 'POST']) {
            const logId = await capture({ method, path: '/ping?challenge=abc' });
            const started = Date.now();
            const res = await svc.fetch(replayUrl(logId, `${target.url}/ping`), { method: 'POST' });
            const answer = await json(res);
            expect(res.status, method).toBe(200);
            expect(answer, method).toMatchObject({ status: 'replayed', targetResponseCode: 201 });
            // One attempt, answered well within the 2 s per-attempt timeout.
            expect(Date.now() - started, method).toBeLessThan(1500);
            const got = target.requests.at(-1)!;
            expect(got.method).toBe(method);
            expect(got.body.length).toBe(0);
        }
    });

    it('replays binary and offloaded bodies byte-exact', async () => {
        const binary = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x0a, 0x00]);
        const big = randomBytes(200_000);
        for (const bytes of [binary, big]) {
            const logId = await capture({ body: bytes, headers: { 'Content-Type': 'application/octet-stream' } });
            const res = await svc.fetch(replayUrl(logId, target.url), { method: 'POST' });
            expect(res.status).toBe(200);
            const got = target.requests.at(-1)!;
            expect(createHash('sha256').update(got.body).digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
            expect(Number(got.headers['content-length'])).toBe(bytes.length);
        }
    });

    it("answers 400 {error: \"Missing 'url' parameter\"} without url, 404 for unknown events", async () => {
        const logId = await capture({ body: 'x' });
        for (const url of [null, '']) {
            const res = await svc.fetch(replayUrl(logId, url), { method: 'POST' });
            expect(res.status).toBe(400);
            expect(await json(res)).toMatchObject({ error: "Missing 'url' parameter" });
        }
        expect((await svc.fetch(replayUrl('nope', target.url), { method: 'POST' })).status).toBe(404);
        expect((await svc.fetch(replayUrl(logId, target.url, 'wh_unknown'), { method: 'POST' })).status).toBe(404);
        expect((await svc.fetch(replayUrl(logId, target.url), { method: 'GET' })).status).toBe(405);
    });

    it('refuses internal destinations (outside SSRF_ALLOWLIST) with 400', async () => {
        const logId = await capture({ body: 'x' });
        for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://0x7f000002/', 'http://[::1]/', 'http://127.0.0.2/', 'http://metadata.google.internal/', 'file:///etc/passwd', 'http://u:p@127.0.0.1/']) {
            const res = await svc.fetch(replayUrl(logId, url), { method: 'POST' });
            expect(res.status, url).toBe(400);
        }
        const blocked = await json(await svc.fetch(replayUrl(logId, 'http://10.0.0.1/'), { method: 'POST' }));
        expect(blocked).toMatchObject({ error: 'URL resolves to internal/reserved IP range' });
    });

    it('a target 4xx/5xx is a completed replay, not retried', async () => {
        const failing = await startReceiver((_r, res) => res.writeHead(503).end('down'));
        try {
            const logId = await capture({ body: 'x' });
            const answer = await json(await svc.fetch(replayUrl(logId, failing.url), { method: 'POST' }));
            expect(answer).toMatchObject({ status: 'replayed', targetResponseCode: 503, targetResponseBody: 'down' });
            expect(failing.requests).toHaveLength(1);
        } finally {
            await failing.close();
        }
    });

    it('a 302 into a blocked range is returned as the answer and never followed', async () => {
        const elsewhere = await startReceiver();
        const redirecting = await startReceiver((req, res) => {
            const to = req.url === '/meta' ? 'http://169.254.169.254/latest/meta-data/' : `http://127.0.0.1:${elsewhere.port}/x`;
            res.writeHead(302, { Location: to }).end();
        });
        try {
            const logId = await capture({ body: 'x' });
            for (const path of ['/meta', '/local']) {
                const res = await svc.fetch(replayUrl(logId, `${redirecting.url}${path}`), { method: 'POST' });
                expect(res.status).toBe(200);
                expect(await json(res)).toMatchObject({ targetResponseCode: 302 });
            }
            expect(elsewhere.requests).toHaveLength(0);
        } finally {
            await redirecting.close();
            await elsewhere.close();
        }
    });

    it('finds the event by its timestamp when itemId is not a log id', async () => {
        const logId = await capture({ body: 'by time' });
        const { timestamp } = await json<{ timestamp: string }>(await svc.fetch(`/logs/${logId}`));
        for (const item of [timestamp, String(Date.parse(timestamp))]) {
            const res = await svc.fetch(replayUrl(item, target.url), { method: 'POST' });
            expect(res.status, item).toBe(200);
            expect(target.requests.at(-1)!.body.toString()).toBe('by time');
        }
    });

    it('edit-then-replay: the JSON body changes method, headers (null removes) and body', async () => {
        const logId = await capture({ body: 'original', headers: { 'X-Remove': 'me', 'X-Keep': 'k', 'Content-Type': 'text/plain' } });
        const edit = { method: 'patch', headers: { 'x-remove': null, Authorization: 'Bearer typed', 'X-Added': 'yes' }, body: { changed: true } };
        const res = await svc.fetch(replayUrl(logId, target.url), { method: 'POST', body: JSON.stringify(edit), headers: { 'Content-Type': 'application/json' } });
        expect(res.status).toBe(200);
        const got = target.requests.at(-1)!;
        expect(got.method).toBe('PATCH');
        expect(got.body.toString()).toBe('{"changed":true}');
        expect(got.headers['content-type']).toBe('application/json');
        expect(got.headers['x-remove']).toBeUndefined();
        expect(got.headers['x-keep']).toBe('k');
        expect(got.headers.authorization).toBe('Bearer typed');
        expect(got.headers['x-added']).toBe('yes');

        const asText = await svc.fetch(replayUrl(logId, target.url), { method: 'POST', body: JSON.stringify({ body: 'plain ✓' }), headers: JSON_TYPE });
        expect(asText.status).toBe(200);
        expect(target.requests.at(-1)!.body.toString('utf8')).toBe('plain ✓');
        expect(target.requests.at(-1)!.headers['content-type']).toBe('text/plain');

        for (const bad of ['not json', '[1]', '{"body": 5}', '{"headers": {"x": 1}}', '{"method": "GE T"}', '{"bogus": 1}', '{"headers": {"Content-Length": "5"}}']) {
            const r = await svc.fetch(replayUrl(logId, target.url), { method: 'POST', body: bad, headers: JSON_TYPE });
            expect(r.status, bad).toBe(400);
        }
        expect((await svc.fetch(replayUrl(logId, target.url), { method: 'POST', body: '{"resign": true}', headers: JSON_TYPE })).status).toBe(400);
    });
});

describe('replay failures', () => {
    it('every attempt timed out → 504 Replay Failed with a code; each attempt has its own Idempotency-Key', async () => {
        const hung = await startReceiver(() => undefined);
        const slow = await startTestService({ input: { rateLimitPerMinute: 0, replayMaxRetries: 2, replayTimeoutMs: 300 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        try {
            const res0 = await slow.fetch(`/webhook/${slow.webhookId}`, { method: 'POST', body: 'x' });
            const list = await json<{ items: { id: string }[] }>(await slow.fetch('/logs'));
            expect(res0.status).toBe(200);
            const logId = list.items[0]!.id;
            const res = await slow.fetch(`/replay/${slow.webhookId}/${logId}?url=${encodeURIComponent(hung.url)}`, { method: 'POST' });
            expect(res.status).toBe(504);
            const body = await json(res);
            expect(body).toMatchObject({ status: 504, error: 'Replay Failed', message: 'Target timed out after 2 attempts (0.3s timeout per attempt)', code: 'ECONNABORTED' });
            expect(hung.requests).toHaveLength(2);
            expect(hung.requests[0]!.headers['idempotency-key']).not.toBe(hung.requests[1]!.headers['idempotency-key']);

            // A closed port: every attempt fails on the network → 502.
            const closed = await startReceiver();
            await closed.close();
            const refused = await slow.fetch(`/replay/${slow.webhookId}/${logId}?url=${encodeURIComponent(closed.url)}`, { method: 'POST' });
            expect(refused.status).toBe(502);
            expect(await json(refused)).toMatchObject({ error: 'Replay Failed', code: 'ECONNREFUSED' });

            const entry = await json<{ replays: unknown[] }>(await slow.fetch(`/logs/${logId}`));
            expect(entry.replays).toEqual([
                expect.objectContaining({ targetUrl: hung.url, targetResponseCode: null, attempts: 2, resigned: false, error: expect.stringContaining('timed out') }),
                expect.objectContaining({ targetUrl: closed.url, targetResponseCode: null, attempts: 2, error: expect.any(String) }),
            ]);
        } finally {
            await slow.close();
            await hung.close();
        }
    });
});

describe('replay history', () => {
    it('lists replays oldest first on GET /logs/:logId, [] when never replayed, refusals not recorded, and survives a restart', async () => {
        const local = await startTestService({ input: { rateLimitPerMinute: 0 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        let restarted: TestService | undefined;
        try {
            await local.fetch(`/webhook/${local.webhookId}`, { method: 'POST', body: 'one' });
            const [{ id: logId } = { id: '' }] = (await json<{ items: { id: string }[] }>(await local.fetch('/logs'))).items;
            expect((await json<{ replays: unknown[] }>(await local.fetch(`/logs/${logId}`))).replays).toEqual([]);
            const send = (url: string) => local.fetch(`/replay/${local.webhookId}/${logId}?url=${encodeURIComponent(url)}`, { method: 'POST' });
            expect((await send(`${target.url}/first`)).status).toBe(200);
            expect((await send('http://10.0.0.1/')).status).toBe(400);
            expect((await send(`${target.url}/second`)).status).toBe(200);
            const before = (await json<{ replays: { targetUrl: string; at: string }[] }>(await local.fetch(`/logs/${logId}`))).replays;
            expect(before.map((r) => r.targetUrl)).toEqual([`${target.url}/first`, `${target.url}/second`]);
            expect(before[0]).toEqual({ at: expect.any(String), targetUrl: `${target.url}/first`, targetResponseCode: 201, attempts: 1, error: null, resigned: false, via: 'replay' });

            await local.close({ keepDir: true });
            restarted = await startTestService({ dir: local.dir, input: { rateLimitPerMinute: 0 } });
            const after = (await json<{ replays: unknown[] }>(await restarted.fetch(`/logs/${logId}`))).replays;
            expect(after).toEqual(before);
        } finally {
            await (restarted ?? local).close();
        }
    });

    it('keeps only the latest 50 replays of an event', async () => {
        const logId = await capture({ body: 'many' });
        for (let i = 0; i < 53; i++) expect((await svc.fetch(replayUrl(logId, `${target.url}/n${i}`), { method: 'POST' })).status).toBe(200);
        const replays = (await json<{ replays: { targetUrl: string }[] }>(await svc.fetch(`/logs/${logId}`))).replays;
        expect(replays).toHaveLength(50);
        expect(replays[0]!.targetUrl).toBe(`${target.url}/n3`);
        expect(replays[49]!.targetUrl).toBe(`${target.url}/n52`);
    });
});
