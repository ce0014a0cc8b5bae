import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { openRawSse, openStalledSse, type RawSse } from './sse-client.js';
import { until } from '../helpers/until.js';

let svc: TestService;

beforeAll(async () => {
    // The spec's 100 clients; a small unread-bytes budget so the stalled-reader test is quick. Not
    // too small: frames can come in bursts (in the PostgreSQL pass, through the database's feed), and
    // a healthy reader on a loaded machine was dropped at 256 KB (CI, 2026-11-28: 4 frames of 60 KB).
    svc = await startTestService({ input: { rateLimitPerMinute: 0 }, live: { maxBufferedBytes: 1024 * 1024 } });
});
afterAll(async () => {
    await svc?.close();
});

describe('GET /log-stream client limits', () => {
    it('serves 100 clients, answers the 101st with the 503 JSON of the spec, and a disconnect frees its slot at once', async () => {
        const clients: RawSse[] = [];
        try {
            for (let i = 0; i < 100; i++) clients.push(await openRawSse(`${svc.url}/log-stream`));
            expect(svc.deps.live.size).toBe(100);
            const refused = await openRawSse(`${svc.url}/log-stream`).then(
                () => undefined,
                (e: { status: number; body: string; headers: Record<string, string> }) => e,
            );
            expect(refused?.status).toBe(503);
            expect(refused?.headers['content-type']).toMatch(/^application\/json/);
            expect(JSON.parse(refused!.body)).toMatchObject({ status: 503, error: 'Service Unavailable', message: expect.stringMatching(/maximum concurrent SSE client limit reached/i) });

            clients.shift()!.close();
            await until('the slot to be freed', () => svc.deps.live.size === 99, { timeoutMs: 1000, intervalMs: 5 });
            clients.push(await openRawSse(`${svc.url}/log-stream`));
            expect(svc.deps.live.size).toBe(100);
            // Every one of them still gets the next capture.
            await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'to all' });
            await Promise.all(clients.map((c) => c.until((s) => s.events().length === 1)));
        } finally {
            clients.forEach((c) => c.close());
        }
        await until('all slots to be freed', () => svc.deps.live.size === 0, { intervalMs: 5 });
    });

    it('a stalled reader is dropped past its buffer, while capture and a healthy client carry on', async () => {
        const healthy = await openRawSse(`${svc.url}/log-stream`);
        const stalled = await openStalledSse(svc.url);
        try {
            await until('both clients to connect', () => svc.deps.live.size === 2, { intervalMs: 5 });
            const droppedBefore = svc.deps.live.dropped;
            const body = JSON.stringify({ pad: 'y'.repeat(60_000) });
            let n = 0;
            // Enough frames to fill the kernel's socket buffers and then our 1 MB budget.
            while (svc.deps.live.dropped === droppedBefore && n < 2000) {
                const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body });
                expect(res.status).toBe(200);
                n++;
            }
            expect(svc.deps.live.dropped).toBe(droppedBefore + 1);
            expect(svc.deps.live.size).toBe(1);
            await healthy.until((s) => s.events().length === n);
            expect(new Set(healthy.events().map((e) => e.id)).size).toBe(n);
        } finally {
            healthy.close();
            stalled.destroy();
        }
    });
});
