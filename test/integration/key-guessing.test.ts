import assert from 'node:assert/strict';
import { afterAll, beforeAll, beforeEach, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { rawRequest, type RawResponse } from '../helpers/http.js';
import { json, startTestService, type TestService } from '../helpers/service.js';

const KEY = 'key-guessing-right-key';
const LIMIT = 20;

/** The parts of an error answer that must not differ between a right and a wrong key. */
const errorOf = (body: Record<string, unknown>): Record<string, unknown> => ({ status: body.status, error: body.error, message: body.message, retryAfterSeconds: body.retryAfterSeconds });
const rawJson = (res: RawResponse): Record<string, unknown> => JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;

/** Forty tries with a wrong key, one after another: each status, and the last 429 answer (its body unread). */
async function guess40(attempt: (i: number) => Promise<Response>): Promise<{ statuses: number[]; refused: Response | undefined }> {
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 40; i++) {
        const res = await attempt(i);
        statuses.push(res.status);
        if (res.status === 429) refused = res;
        else await res.body?.cancel();
    }
    return { statuses, refused };
}

describe('guessing a key costs: 401, 403 and 405 count against the per-client limit', () => {
    let svc: TestService;
    const clock = new ManualClock();
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: KEY, rateLimitPerMinute: LIMIT }, clock });
    });
    afterAll(() => svc.close());
    // Each case starts in a fresh window of the shared limiter.
    beforeEach(() => clock.advance(60_000));

    /** From another loopback address: a second client with a count of its own. */
    const fromOtherClient = (path: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> =>
        rawRequest(`${svc.url}${path}`, { method, headers, localAddress: '127.0.0.2', ...(body === undefined ? {} : { chunks: [Buffer.from(body)] }) });

    it('answers 40 wrong keys on GET /logs with 20 × 401, then 429 with Retry-After; then the right key gets the same 429, another client is served', async () => {
        const { statuses, refused } = await guess40((i) => svc.fetch('/logs', { headers: { authorization: `Bearer wrong-${i}` } }));
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(401), ...Array<number>(40 - LIMIT).fill(429)]);
        assert.ok(Number(refused!.headers.get('retry-after')) > 0, 'Retry-After on the 429');
        assert.equal(refused!.headers.get('x-ratelimit-limit'), String(LIMIT));
        assert.equal(refused!.headers.get('x-ratelimit-remaining'), '0');
        const wrongBody = await json(refused!);
        assert.equal(wrongBody.message, `Max ${LIMIT} requests per 60s`);

        const right = await svc.fetch('/logs', { headers: { authorization: `Bearer ${KEY}` } });
        assert.equal(right.status, 429, 'the right key from a client over its limit');
        assert.deepEqual(errorOf(await json(right)), errorOf(wrongBody), 'the 429 does not depend on the key');
        assert.equal(right.headers.get('retry-after'), refused!.headers.get('retry-after'));

        const other = await fromOtherClient('/logs', 'GET', { authorization: `Bearer ${KEY}` });
        assert.equal(other.status, 200, 'another client has its own count');
    });

    it('answers 40 wrong keys on ingest with 20 × 401, then 429 with Retry-After, before the key is checked; the management count is the same one', async () => {
        const hook = `/webhook/${svc.webhookId}`;
        const { statuses, refused } = await guess40((i) => svc.fetch(`${hook}?key=wrong-${i}`, { method: 'POST', body: 'guess' }));
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(401), ...Array<number>(40 - LIMIT).fill(429)]);
        assert.ok(Number(refused!.headers.get('retry-after')) > 0, 'Retry-After on the 429');
        assert.equal(refused!.headers.get('x-ratelimit-limit'), String(LIMIT));
        const wrongBody = await json(refused!);
        assert.equal(wrongBody.message, `Max ${LIMIT} requests per 60s`);

        const right = await svc.fetch(`${hook}?key=${KEY}`, { method: 'POST', body: 'guess' });
        assert.equal(right.status, 429, 'the right key from a client over its limit');
        assert.deepEqual(errorOf(await json(right)), errorOf(wrongBody), 'the 429 does not depend on the key');
        const noKey = await svc.fetch(hook, { method: 'POST', body: 'guess' });
        assert.equal(noKey.status, 429, 'nor on its absence');
        assert.deepEqual(errorOf(await json(noKey)), errorOf(wrongBody));

        const managed = await svc.fetch('/logs', { headers: { authorization: `Bearer ${KEY}` } });
        assert.equal(managed.status, 429, 'ingest refusals used up the same allowance as /logs');
        await managed.body?.cancel();

        const other = await fromOtherClient(`${hook}?key=${KEY}`, 'POST', { 'content-type': 'text/plain', 'content-length': '2' }, 'ok');
        assert.equal(other.status, 200, 'another client still sends');
        const list = await fromOtherClient('/logs?limit=100', 'GET', { authorization: `Bearer ${KEY}` });
        assert.equal((rawJson(list).items as unknown[]).length, 1, 'neither the refused guesses nor the 429s were stored');
    });

    it('counts 405s: 20 × PUT /logs with the key are 405, the 21st is 429, and so is a 405 without the key', async () => {
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 1; i++) {
            const res = await svc.fetch('/logs', { method: 'PUT', headers: { authorization: `Bearer ${KEY}` } });
            statuses.push(res.status);
            await res.body?.cancel();
        }
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(405), 429]);
        const stranger = await svc.fetch('/logs', { method: 'PUT' });
        assert.equal(stranger.status, 429, 'the limit comes before the key on the 405 path too');
        assert.ok(stranger.headers.get('retry-after'));
        await stranger.body?.cancel();
    });

    it('counts a stranger probing methods: DELETE /info without the key is 401 twenty times, then 429', async () => {
        const statuses: number[] = [];
        for (let i = 0; i < LIMIT + 1; i++) {
            const res = await svc.fetch('/info', { method: 'DELETE' });
            statuses.push(res.status);
            await res.body?.cancel();
        }
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(401), 429]);
    });

    it('does not count accepted ingest: 30 sends with the right key from one client are all 200, and its management allowance is whole', async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 30; i++) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}?key=${KEY}`, { method: 'POST', body: `ok ${i}` });
            statuses.push(res.status);
            await res.body?.cancel();
        }
        assert.deepEqual(statuses, Array<number>(30).fill(200));
        const managed = await svc.fetch('/info', { headers: { authorization: `Bearer ${KEY}` } });
        assert.equal(managed.status, 200);
        assert.equal(managed.headers.get('x-ratelimit-remaining'), String(LIMIT - 1), 'the 30 sends did not count');
        await managed.body?.cancel();
    });
});

describe('guessing past allowedIps costs too: an ingest 403 counts against the per-client limit', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { allowedIps: ['10.0.0.0/8'], rateLimitPerMinute: LIMIT } });
    });
    afterAll(() => svc.close());

    it('answers 20 × 403 from an address outside allowedIps, then 429 with Retry-After', async () => {
        const statuses: number[] = [];
        let last: Response | undefined;
        for (let i = 0; i < LIMIT + 5; i++) {
            last = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'x' });
            statuses.push(last.status);
            if (i < LIMIT + 4) await last.body?.cancel();
        }
        assert.deepEqual(statuses, [...Array<number>(LIMIT).fill(403), ...Array<number>(5).fill(429)]);
        assert.ok(Number(last!.headers.get('retry-after')) > 0);
        assert.equal((await json(last!)).message, `Max ${LIMIT} requests per 60s`);
    });
});
