import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver } from '../replay/receiver.js';
import { until } from '../helpers/until.js';
import { openRawSse, openStalledSse } from '../stream/sse-client.js';

interface Counters {
    forwarding: { delivered: number; failed: number; dropped: number };
    liveStream: { clients: number; droppedSlowReaders: number };
    queries: { rejectedBusy: number; timedOut: number; cancelled: number };
}

const metrics = async (svc: TestService): Promise<Counters> => json<Counters>(await svc.fetch('/system/metrics'));

let services: TestService[] = [];
afterEach(async () => {
    await Promise.all(services.map((s) => s.close()));
    services = [];
});
async function start(options: Parameters<typeof startTestService>[0]): Promise<TestService> {
    const svc = await startTestService(options);
    services.push(svc);
    return svc;
}

describe('/system/metrics counters', () => {
    it('counts forwarding outcomes: failed to a dead loopback port, delivered to a live one', async () => {
        // A port that takes connections and drops each at once, held for the test: a port closed
        // instead was free for any process of the run to listen on (CI, 2026-11-28: both forwards
        // "delivered" to whoever took it).
        const gone = createServer((socket) => socket.destroy());
        await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
        onTestFinished(() => new Promise<void>((resolve) => gone.close(() => resolve())));
        const goneUrl = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
        const dead = await start({ input: { rateLimitPerMinute: 0, forwardUrl: goneUrl, replayMaxRetries: 1 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        expect((await metrics(dead)).forwarding).toEqual({ delivered: 0, failed: 0, dropped: 0, backlog: 0, heldInMemory: 0, trickling: false });
        await dead.fetch(`/webhook/${dead.webhookId}`, { method: 'POST', body: 'x' });
        await dead.fetch(`/webhook/${dead.webhookId}`, { method: 'POST', body: 'y' });
        await expect.poll(async () => (await metrics(dead)).forwarding, { timeout: 10_000 }).toEqual({ delivered: 0, failed: 2, dropped: 0, backlog: 0, heldInMemory: 0, trickling: false });

        const target = await startReceiver();
        try {
            const live = await start({ input: { rateLimitPerMinute: 0, forwardUrl: target.url }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
            await live.fetch(`/webhook/${live.webhookId}`, { method: 'POST', body: 'z' });
            await expect.poll(async () => (await metrics(live)).forwarding, { timeout: 10_000 }).toEqual({ delivered: 1, failed: 0, dropped: 0, backlog: 0, heldInMemory: 0, trickling: false });
        } finally {
            await target.close();
        }
    });

    it('counts queries refused as busy (503) and stopped by the time limit (504)', async () => {
        const busy = await start({ input: { rateLimitPerMinute: 0 }, queryPool: { maxInFlight: 0 } });
        expect((await busy.fetch('/logs')).status).toBe(503);
        expect((await busy.fetch('/logs?format=har')).status).toBe(503);
        expect((await metrics(busy)).queries).toEqual({ rejectedBusy: 2, timedOut: 0, cancelled: 0 });

        // One slice per worker request, so a body search is many round trips: well over 1 ms.
        const slow = await start({ input: { rateLimitPerMinute: 0 }, queryPool: { splitFrom: 1, slice: 1, timeoutMs: 1 } });
        for (let i = 0; i < 50; i++) await slow.fetch(`/webhook/${slow.webhookId}`, { method: 'POST', body: 'a'.repeat(10_000) });
        // Captures are answered before their commit: an empty store would answer the search at once.
        await until('the 50 captures to be committed', async () => ((await json<{ storage: { eventsStored: number } }>(await slow.fetch('/system/metrics'))).storage.eventsStored === 50 ? true : undefined));
        expect((await slow.fetch('/logs?cursor=&body=no-such-term&limit=10')).status).toBe(504);
        expect((await metrics(slow)).queries).toMatchObject({ rejectedBusy: 0, timedOut: 1 });
    });

    it('counts live-stream clients and the readers dropped for not reading', async () => {
        const svc = await start({ input: { rateLimitPerMinute: 0 }, live: { maxBufferedBytes: 256 * 1024 } });
        const reader = await openRawSse(`${svc.url}/log-stream`);
        const stalled = await openStalledSse(svc.url);
        try {
            await expect.poll(async () => (await metrics(svc)).liveStream).toEqual({ clients: 2, droppedSlowReaders: 0 });
            const body = JSON.stringify({ pad: 'y'.repeat(60_000) });
            for (let n = 0; n < 2000 && svc.deps.live.dropped === 0; n++) {
                expect((await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body })).status).toBe(200);
            }
            expect(svc.deps.live.dropped).toBeGreaterThan(0);
            const after = await metrics(svc);
            expect(after.liveStream.droppedSlowReaders).toBe(svc.deps.live.dropped);
            expect(after.liveStream.clients).toBe(svc.deps.live.size);
            expect(after.liveStream.clients).toBeLessThan(2);
        } finally {
            reader.close();
            stalled.destroy();
        }
    });
});
