import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, hit, patchWebhook } from './helpers.js';

/** A deterministic source for failureRate: the given values in turn, then 0.99 (no failure). */
const scripted = (values: number[]): (() => number) => () => values.shift() ?? 0.99;

describe('per-webhook answers in the ingest pipeline', () => {
    let svc: TestService;
    const random: number[] = [];
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, defaultResponseBody: 'run default' }, random: () => random.shift() ?? 0.99 });
    });
    afterAll(() => svc.close());

    it("a webhook's response overrides the run's status, body and headers for that URL only", async () => {
        const own = await createWebhook(svc, { response: { statusCode: 503, body: 'down for maintenance', headers: { 'X-Owner': 'own' } } });
        const other = await createWebhook(svc);
        const a = await hit(svc, own.id);
        expect(a.status).toBe(503);
        expect(a.text).toBe('down for maintenance');
        expect(a.headers.get('x-owner')).toBe('own');
        const b = await hit(svc, other.id);
        expect(b.status).toBe(200);
        expect(b.text).toBe('run default');
        expect(b.headers.get('x-owner')).toBeNull();
        // The stored event records the answer that was sent.
        const stored = await json<{ statusCode: number; responseBody: unknown }>(await svc.fetch(`/logs/${(await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch(`/logs?requestId=${a.requestId}`))).items[0]!.id}`));
        expect(stored).toMatchObject({ statusCode: 503, responseBody: 'down for maintenance' });
    });

    it('an object body goes out as JSON; unset fields fall back to the run defaults', async () => {
        const hook = await createWebhook(svc, { response: { body: { received: true } } });
        const res = await hit(svc, hook.id);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(JSON.parse(res.text)).toEqual({ received: true });
        const statusOnly = await createWebhook(svc, { response: { statusCode: 202 } });
        const accepted = await hit(svc, statusOnly.id);
        expect(accepted.status).toBe(202);
        expect(accepted.text).toBe('run default');
    });

    it('a sequence "500, 500, then 200" answers in order and the last answer stays', async () => {
        const hook = await createWebhook(svc, { response: { sequence: [{ statusCode: 500 }, { statusCode: 500 }, { statusCode: 200, body: 'healthy' }] } });
        const statuses = [];
        for (let i = 0; i < 5; i++) statuses.push((await hit(svc, hook.id)).status);
        expect(statuses).toEqual([500, 500, 200, 200, 200]);
        // Setting the response again starts the count over.
        await patchWebhook(svc, hook.id, { response: { sequence: [{ statusCode: 500 }, { statusCode: 200 }] } });
        expect([(await hit(svc, hook.id)).status, (await hit(svc, hook.id)).status, (await hit(svc, hook.id)).status]).toEqual([500, 200, 200]);
    });

    it('100 parallel requests to a sequence of 100 answers each get a different one', async () => {
        const sequence = Array.from({ length: 100 }, (_, i) => ({ statusCode: 200 + i }));
        const hook = await createWebhook(svc, { response: { sequence } });
        const answers = await Promise.all(Array.from({ length: 100 }, () => hit(svc, hook.id)));
        const statuses = answers.map((a) => a.status).sort((x, y) => x - y);
        expect(statuses).toEqual(sequence.map((s) => s.statusCode));
        expect((await hit(svc, hook.id)).status).toBe(299);
    });

    it('?__status= still wins over the webhook answer, and the sequence moves on', async () => {
        const hook = await createWebhook(svc, { response: { sequence: [{ statusCode: 500 }, { statusCode: 201 }] } });
        expect((await hit(svc, hook.id, 'x', '?__status=299')).status).toBe(299);
        expect((await hit(svc, hook.id)).status).toBe(201);
        expect((await hit(svc, hook.id, 'x', '?__status=abc')).status).toBe(400);
    });

    it('failureRate answers failureStatusCode (default 503) when the injected random falls under it', async () => {
        const hook = await createWebhook(svc, { response: { failureRate: 0.5, statusCode: 200, body: 'fine' } });
        random.push(0.1, 0.9, 0.49, 0.5);
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await hit(svc, hook.id));
        expect(answers.map((a) => a.status)).toEqual([503, 200, 503, 200]);
        expect(answers[1]!.text).toBe('fine');
        expect(JSON.parse(answers[0]!.text)).toMatchObject({ webhookId: hook.id });
        const custom = await createWebhook(svc, { response: { failureRate: 1, failureStatusCode: 429 } });
        expect((await hit(svc, custom.id)).status).toBe(429);
        const never = await createWebhook(svc, { response: { failureRate: 0 } });
        random.push(0);
        expect((await hit(svc, never.id)).status).toBe(200);
    });

    it('retryAfterSeconds adds Retry-After to 429 and 503 answers from a failure, the sequence or the status, and to no other', async () => {
        const hook = await createWebhook(svc, { response: { retryAfterSeconds: 30, sequence: [{ statusCode: 429 }, { statusCode: 503 }, { statusCode: 500 }, { statusCode: 200 }] } });
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await hit(svc, hook.id));
        expect(answers.map((a) => [a.status, a.headers.get('retry-after')])).toEqual([[429, '30'], [503, '30'], [500, null], [200, null]]);
        expect((await hit(svc, hook.id, 'x', '?__status=503')).headers.get('retry-after')).toBe('30');
        const failing = await createWebhook(svc, { response: { retryAfterSeconds: 5, failureRate: 1 } });
        const failed = await hit(svc, failing.id);
        expect([failed.status, failed.headers.get('retry-after')]).toEqual([503, '5']);
    });

    it('a PATCH takes effect on the next request, with no restart; null goes back to the run defaults', async () => {
        const hook = await createWebhook(svc);
        expect((await hit(svc, hook.id)).status).toBe(200);
        await patchWebhook(svc, hook.id, { response: { statusCode: 418, body: 'teapot' } });
        const patched = await hit(svc, hook.id);
        expect([patched.status, patched.text]).toEqual([418, 'teapot']);
        await patchWebhook(svc, hook.id, { response: null });
        const cleared = await hit(svc, hook.id);
        expect([cleared.status, cleared.text]).toEqual([200, 'run default']);
    });
});

describe('per-webhook delay', () => {
    it("delayMs holds that webhook's answer after the event is committed; 0 overrides the run's responseDelayMs", async () => {
        const clock = new ManualClock();
        const svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, responseDelayMs: 5000 }, clock, random: scripted([]) });
        try {
            const slow = await createWebhook(svc, { response: { delayMs: 2000 } });
            const instant = await createWebhook(svc, { response: { delayMs: 0, statusCode: 201 } });
            expect((await hit(svc, instant.id)).status).toBe(201);
            let answered = false;
            const pending = hit(svc, slow.id).then((r) => ((answered = true), r));
            await clock.whenSleeping(1);
            // Visible while the sender waits.
            const page = await json<{ total: number }>(await svc.fetch(`/logs?webhookId=${slow.id}`));
            expect(page.total).toBe(1);
            expect(answered).toBe(false);
            clock.advance(1999);
            await new Promise((r) => setTimeout(r, 100));
            expect(answered).toBe(false);
            clock.advance(1);
            expect((await pending).status).toBe(200);
        } finally {
            await svc.close();
        }
    });
});

describe('webhooks last across a restart', () => {
    it('keeps created webhooks with their names, answers and expiry; deleted ones stay deleted', async () => {
        const first = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        const kept = await createWebhook(first, { name: 'kept', retentionHours: 5, response: { statusCode: 202, body: 'still here', headers: { 'X-Kept': '1' } } });
        const renamed = await createWebhook(first, { name: 'before' });
        await patchWebhook(first, renamed.id, { name: 'after', response: { sequence: [{ statusCode: 500 }, { statusCode: 200 }] } });
        const gone = await createWebhook(first);
        expect((await first.fetch(`/webhooks/${gone.id}`, { method: 'DELETE' })).status).toBe(204);
        const before = await json<{ items: unknown[] }>(await first.fetch('/webhooks'));
        await first.close({ keepDir: true });

        const second = await startTestService({ dir: first.dir, input: { urlCount: 1, rateLimitPerMinute: 0 } });
        try {
            const after = await json<{ items: { id: string; url: string }[] }>(await second.fetch('/webhooks'));
            const strip = (items: unknown[]): unknown[] => (items as { url: string }[]).map(({ url: _url, ...rest }) => rest);
            expect(strip(after.items)).toEqual(strip(before.items));
            expect(after.items.map((w) => w.id)).not.toContain(gone.id);
            const answer = await hit(second, kept.id);
            expect([answer.status, answer.text, answer.headers.get('x-kept')]).toEqual([202, 'still here', '1']);
            expect([(await hit(second, renamed.id)).status, (await hit(second, renamed.id)).status]).toEqual([500, 200]);
            expect((await hit(second, gone.id)).status).toBe(404);
        } finally {
            await second.close();
        }
    });
});
