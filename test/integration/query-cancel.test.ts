import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

// Bodies that almost hold the search term everywhere, so a pass over them takes real time.
const BODY = Buffer.alloc(256 * 1024, 'no-such-ter ');
// The same pass behind the list and behind the HAR export; each must stop when its client leaves.
const SEARCHES = [
    { route: 'GET /logs', path: '/logs?cursor=&body=no-such-term&sort=userAgent:asc&limit=10', rows: (b: unknown) => (b as { items: unknown[] }).items },
    { route: 'GET /logs?format=har', path: '/logs?format=har&body=no-such-term&sort=userAgent:asc&limit=10', rows: (b: unknown) => (b as { log: { entries: unknown[] } }).log.entries },
];

describe('GET /logs stops its query when the client disconnects', () => {
    let svc: TestService;
    let stats: () => NonNullable<ReturnType<SqliteEventStore['queryStats']>>;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 }, queryPool: { splitFrom: 1, slice: 1 } });
        const store = svc.deps.storage.events as SqliteEventStore;
        stats = () => store.queryStats()!;
        for (let i = 0; i < 160; i++) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: BODY, headers: { 'content-type': 'text/plain' } });
            assert.equal(res.status, 200);
        }
    });
    afterAll(() => svc.close());

    for (const { route, path, rows } of SEARCHES) {
        it(`${route}: a search whose client went away is cancelled in the workers, and the service keeps answering`, async () => {
            // A worker whose half ends before the cancel reaches it answers normally; on a loaded
            // machine that can happen to one of them, so the search is tried again until both
            // halves were still running. Every try must still cancel the query and stop a worker.
            const stoppedPerTry: number[] = [];
            while (stoppedPerTry.length < 5 && !stoppedPerTry.includes(2)) {
                const cancelledBefore = stats().cancelled;
                const controller = new AbortController();
                const request = svc.fetch(path, { signal: controller.signal }).catch((error: unknown) => error);
                await until('the search pass to run on both workers', () => stats().pending === 2, { timeoutMs: 10_000, intervalMs: 1 });
                const stoppedBefore = stats().stoppedEarly;
                controller.abort();
                assert.equal((await request as Error).name, 'AbortError');
                await until('the workers to answer', () => stats().pending === 0, { timeoutMs: 10_000, intervalMs: 1 });
                assert.equal(stats().cancelled, cancelledBefore + 1, 'the query was cancelled, not run to its end');
                stoppedPerTry.push(stats().stoppedEarly - stoppedBefore);
                assert.ok(stoppedPerTry.at(-1)! >= 1, `a worker stopped its half of the pass early (${stoppedPerTry})`);
            }
            assert.ok(stoppedPerTry.includes(2), `both workers stopped their half of the pass early in one try (${stoppedPerTry})`);
            const again = await svc.fetch(path);
            assert.equal(again.status, 200);
            assert.deepEqual(rows(await again.json()), []);
        });
    }

    it('the HAR export still lists what the query finds, each entry with its body', async () => {
        const res = await svc.fetch('/logs?format=har&limit=3');
        assert.equal(res.status, 200);
        const har = (await res.json()) as { log: { entries: { request: { bodySize: number } }[] } };
        assert.equal(har.log.entries.length, 3);
        for (const e of har.log.entries) assert.equal(e.request.bodySize, BODY.length);
    });
});
