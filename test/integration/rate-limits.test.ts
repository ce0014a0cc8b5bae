import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { findEvent as findByRequestId, json, startTestService, type TestService } from '../helpers/service.js';

describe('rate-limit windows on the injected clock', () => {
    let svc: TestService;
    const clock = new ManualClock();
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 3, urlCount: 2 }, clock, overrides: { ingestLimitPerMinute: 2 } });
    });
    afterAll(() => svc.close());

    it('limits management routes per IP with 429 and rate-limit headers', async () => {
        const statuses: number[] = [];
        let last: Response | undefined;
        for (let i = 0; i < 4; i++) {
            last = await svc.fetch('/health');
            statuses.push(last.status);
            if (i === 0) {
                assert.equal(last.headers.get('x-ratelimit-limit'), '3');
                assert.equal(last.headers.get('x-ratelimit-remaining'), '2');
                assert.equal(Number(last.headers.get('x-ratelimit-reset')), (clock.now() + 60_000) / 1000, 'the window ends 60 s after its first request');
            }
        }
        assert.deepEqual(statuses, [200, 200, 200, 429]);
        const body = await json(last!);
        assert.deepEqual({ status: body.status, error: body.error, message: body.message }, { status: 429, error: 'Too Many Requests', message: 'Max 3 requests per 60s' });
        assert.ok(Number(last!.headers.get('retry-after')) > 0);
    });

    it('opens a new management window once the injected clock passes 60 s, with no real waiting', async () => {
        let res = await svc.fetch('/health');
        for (let i = 0; i < 3 && res.status !== 429; i++) res = await svc.fetch('/health');
        assert.equal(res.status, 429);
        const resetMs = Number(res.headers.get('x-ratelimit-reset')) * 1000;
        clock.advance(resetMs - clock.now() - 1);
        res = await svc.fetch('/health');
        assert.equal(res.status, 429, '1 ms before the window ends');
        assert.equal(res.headers.get('retry-after'), '1');
        clock.advance(1);
        res = await svc.fetch('/health');
        assert.equal(res.status, 200, 'a new window');
        assert.equal(res.headers.get('x-ratelimit-remaining'), '2');
        assert.equal(Number(res.headers.get('x-ratelimit-reset')), (clock.now() + 60_000) / 1000);
    });

    it('opens a new per-webhook ingest window once the injected clock passes 60 s', async () => {
        const hook = svc.deps.webhooks.active()[1]!.id;
        const send = async (): Promise<Response> => svc.fetch(`/webhook/${hook}`, { method: 'POST', body: 'w' });
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) statuses.push((await send()).status);
        assert.deepEqual(statuses, [200, 200, 429]);
        clock.advance(59_000);
        assert.equal((await send()).status, 429, 'the same window 59 s later');
        clock.advance(1_000);
        const res = await send();
        assert.equal(res.status, 200, 'a new window once 60 s have passed');
        assert.equal(res.headers.get('x-ratelimit-remaining'), '1');
    });
});

describe('ingest rate limit per webhook', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 2 }, overrides: { ingestLimitPerMinute: 2 } });
    });
    afterAll(() => svc.close());

    it('answers 429 with retryAfterSeconds past the per-webhook limit, independently per webhook', async () => {
        const [a, b] = svc.deps.webhooks.active();
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await svc.fetch(`/webhook/${a!.id}`, { method: 'POST', body: 'x' })).status);
        assert.deepEqual(statuses, [200, 200, 429]);
        const res = await svc.fetch(`/webhook/${a!.id}`, { method: 'POST', body: 'x' });
        const body = await json<Record<string, unknown>>(res);
        assert.equal(body.status, 429);
        assert.equal(body.error, 'Too Many Requests');
        assert.match(String(body.message), /2 requests per minute per webhook/);
        assert.equal(typeof body.retryAfterSeconds, 'number');
        assert.ok(res.headers.get('retry-after'));
        const other = await svc.fetch(`/webhook/${b!.id}`, { method: 'POST', body: 'x' });
        assert.equal(other.status, 200);
        assert.equal(other.headers.get('x-ratelimit-limit'), '2');
        assert.equal(other.headers.get('x-ratelimit-remaining'), '1');
        const stored = await json<{ responseHeaders: Record<string, string> }>(await svc.fetch(`/logs/${(await findByRequestId(svc, other.headers.get('x-request-id'))).id}`));
        assert.equal(stored.responseHeaders['X-RateLimit-Limit'], '2', 'the stored answer has the headers that were sent');
        const list = await json<{ total: number }>(await svc.fetch('/logs'));
        assert.equal(list.total, 3, 'refused requests are not stored');
    });
});
