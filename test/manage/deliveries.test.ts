import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';

// POST /logs/deliveries: where the `listen` command records its deliveries. Each report is kept in its
// event's `replays`, beside replays, with `via: "listen"`; the route is guarded like every management route.

const KEY = 'deliveries-key';

interface Replay {
    via?: string;
    targetUrl: string;
    targetResponseCode: number | null;
    durationMs?: number;
    attempts: number;
    error: string | null;
    resigned: boolean;
    at: string;
}

describe('POST /logs/deliveries', () => {
    let svc: TestService;
    const auth = { authorization: `Bearer ${KEY}` };
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, authKey: KEY, rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc?.close());

    /** Captures one request; resolves with its event id. */
    async function capture(): Promise<string> {
        const res = await svc.fetch(`/webhook/${svc.webhookId}?key=${KEY}`, { method: 'POST', body: 'x' });
        await res.arrayBuffer();
        const page = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs?limit=1', { headers: auth }));
        assert.equal(page.items[0]!.requestId, res.headers.get('x-request-id'));
        return page.items[0]!.id;
    }

    const post = (body: unknown, headers: Record<string, string> = auth): Promise<Response> =>
        svc.fetch('/logs/deliveries', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const replaysOf = async (id: string): Promise<Replay[]> => (await json<{ replays: Replay[] }>(await svc.fetch(`/logs/${id}`, { headers: auth }))).replays;

    it('keeps each report in its event\'s replays with via "listen", in order, and lists unknown events', async () => {
        const [a, b] = [await capture(), await capture()];
        const res = await post({
            items: [
                { eventId: a, target: 'http://localhost:3000/hooks', status: 503, durationMs: 12.5, error: null, attempts: 3 },
                { eventId: 'noSuchEvent', target: 'http://localhost:3000/hooks', status: 200, durationMs: 1, error: null },
                { eventId: b, target: `http://localhost:3000/hooks?key=${KEY}`, status: null, durationMs: 0, error: 'a CONNECT request cannot be delivered' },
                { eventId: a, target: 'http://localhost:3000/hooks', status: 200, durationMs: 2, error: null },
            ],
        });
        assert.equal(res.status, 200);
        assert.deepEqual(await json(res), { recorded: 3, unknown: ['noSuchEvent'] });
        const [ra, rb] = [await replaysOf(a), await replaysOf(b)];
        assert.deepEqual(ra.map((r) => [r.via, r.targetUrl, r.targetResponseCode, r.durationMs, r.attempts, r.error, r.resigned]), [
            ['listen', 'http://localhost:3000/hooks', 503, 12.5, 3, null, false],
            ['listen', 'http://localhost:3000/hooks', 200, 2, 1, null, false],
        ]);
        assert.equal(rb.length, 1);
        // A target that carries the service's own key keeps it masked.
        assert.ok(!rb[0]!.targetUrl.includes(KEY), rb[0]!.targetUrl);
        assert.equal(rb[0]!.targetResponseCode, null);
        assert.equal(rb[0]!.error, 'a CONNECT request cannot be delivered');
    });

    it('needs the key (401), refuses a body that is not DeliveryReports (400 with details), and other methods (405)', async () => {
        const id = await capture();
        const ok = { eventId: id, target: 'http://localhost:3000/', status: 200, durationMs: 1, error: null };
        assert.equal((await post({ items: [ok] }, {})).status, 401);
        const bad: unknown[] = [
            {},
            { items: [] },
            { items: [{ ...ok, status: 99 }] },
            { items: [{ ...ok, extra: 1 }] },
            { items: [{ eventId: id, target: 'http://x/', status: 200, error: null }] },
            { items: Array.from({ length: 1001 }, () => ok) },
        ];
        for (const body of bad) {
            const res = await post(body);
            assert.equal(res.status, 400, JSON.stringify(body).slice(0, 100));
            assert.ok(Array.isArray((await json<{ details?: unknown }>(res)).details), JSON.stringify(body).slice(0, 100));
        }
        assert.equal((await svc.fetch('/logs/deliveries', { headers: auth })).status, 405);
        assert.deepEqual(await replaysOf(id), [], 'a refused request recorded something');
    });
});
