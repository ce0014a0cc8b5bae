import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, hit } from '../manage/helpers.js';

// `response.rateLimit: {requests, perSeconds}`: a sliding window per webhook, counted exactly within
// one process however many requests arrive at once; 429 with Retry-After and the RateLimit-* headers.

describe('the simulated rate limit', () => {
    let svc: TestService;
    const clock = new ManualClock(Date.parse('2026-11-28T10:00:00Z'));
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 }, clock });
    });
    afterAll(() => svc.close());

    it('lets exactly 10 of 50 concurrent requests through, answers the rest 429, and stores them all', async () => {
        const hook = await createWebhook(svc, { response: { statusCode: 201, rateLimit: { requests: 10, perSeconds: 60 } } });
        const answers = await Promise.all(Array.from({ length: 50 }, () => hit(svc, hook.id)));
        expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
        const refused = answers.filter((a) => a.status === 429);
        expect(refused).toHaveLength(40);
        for (const r of refused) {
            expect(r.headers.get('retry-after')).toBe('60');
            expect([r.headers.get('ratelimit-limit'), r.headers.get('ratelimit-remaining'), r.headers.get('ratelimit-reset')]).toEqual(['10', '0', '60']);
            expect(JSON.parse(r.text)).toMatchObject({ status: 429, error: 'Too Many Requests', retryAfterSeconds: 60 });
        }
        const page = await json<{ total: number }>(await svc.fetch(`/logs?webhookId=${hook.id}&statusCode=429`));
        expect(page.total).toBe(40);
    });

    it('counts down RateLimit-Remaining, and frees the window as its oldest request ages out', async () => {
        const hook = await createWebhook(svc, { response: { rateLimit: { requests: 3, perSeconds: 60 } } });
        const first = await hit(svc, hook.id);
        expect([first.status, first.headers.get('ratelimit-remaining'), first.headers.get('ratelimit-reset'), first.headers.get('retry-after')]).toEqual([200, '2', '0', null]);
        clock.advance(20_000);
        await hit(svc, hook.id);
        const third = await hit(svc, hook.id);
        expect([third.status, third.headers.get('ratelimit-remaining'), third.headers.get('ratelimit-reset')]).toEqual([200, '0', '40']);
        expect((await hit(svc, hook.id)).headers.get('retry-after')).toBe('40');
        // The first request leaves the window 60 s after it came: one slot frees, not three.
        clock.advance(40_000);
        expect((await hit(svc, hook.id)).status).toBe(200);
        const again = await hit(svc, hook.id);
        expect([again.status, again.headers.get('retry-after')]).toEqual([429, '20']);
    });

    it('applies before rules: a refused request is answered 429 and no rule is recorded for it', async () => {
        const hook = await createWebhook(svc, { response: { rateLimit: { requests: 1, perSeconds: 10 }, rules: [{ name: 'all', when: {}, answer: { statusCode: 202 } }] } });
        expect((await hit(svc, hook.id)).status).toBe(202);
        const refused = await hit(svc, hook.id, 'x', '?__status=200');
        expect(refused.status).toBe(429);
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${refused.requestId}`));
        const entry = await json<Record<string, unknown>>(await svc.fetch(`/logs/${page.items[0]!.id}`));
        expect(entry.statusCode).toBe(429);
        expect(entry.answeredBy).toBeUndefined();
        expect((await json<{ total: number }>(await svc.fetch(`/logs?webhookId=${hook.id}&answeredBy=all`))).total).toBe(1);
    });
});
