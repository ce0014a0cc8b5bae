import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { QueryPool, type QueryPoolOptions } from '../../src/storage/sqlite/query-pool.js';
import type { NewEvent } from '../../src/storage/types.js';
import { storedEvent, T0 } from './seed.js';
import { until } from '../helpers/until.js';

// 160 bodies of 256 KB: with slices of one event, a pass over them is 160 slices of real work.
const EVENTS = 160;
const BODY = 256 * 1024;
// Text that almost holds the term everywhere, so LIKE cannot skip ahead: each body costs real work.
const NEAR_MISS = Buffer.alloc(BODY, 'no-such-ter ');
const q = (qs: string) => parseLogsQuery(new URLSearchParams(qs));
// An absent term, in an order no index gives: only a full pass over every body can answer it.
const SCAN = 'cursor=&body=no-such-term&sort=userAgent:asc&limit=10';
const NEWEST = 'cursor=&limit=1';

const appError = (status: number, pattern: RegExp) => (error: unknown): boolean => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.status, status);
    assert.match(error.message, pattern);
    return true;
};

describe('query pool bounds: queue, time limit, cancellation', () => {
    let dir: string;
    let file: string;
    let store: SqliteEventStore;
    const pools: QueryPool[] = [];
    const pool = (options: QueryPoolOptions): QueryPool => {
        const p = new QueryPool(file, 2, { splitFrom: 1, slice: 1, ...options });
        pools.push(p);
        return p;
    };

    beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'whd-pool-'));
        file = join(dir, 'events.sqlite');
        store = await SqliteEventStore.open({ file, queryWorkers: 0 });
        const events: NewEvent[] = [];
        for (let i = 0; i < EVENTS; i++) {
            events.push(storedEvent({ id: `e${String(i).padStart(4, '0')}`, webhookId: 'wh_a', timestamp: T0 + i, userAgent: `ua${i % 7}`, size: BODY, bodyKind: 'text', bodyRaw: NEAR_MISS }));
        }
        await store.importEvents(events);
    });
    afterAll(async () => {
        await Promise.all(pools.map((p) => p.close()));
        await store.close();
        await rm(dir, { recursive: true, force: true });
    });

    it('refuses a query beyond maxInFlight with 503 and Retry-After, and serves again once there is room', async () => {
        const p = pool({ maxInFlight: 2, maxScans: 1 });
        const first = p.run(q(SCAN));
        const second = p.run(q(SCAN));
        await assert.rejects(p.run(q(NEWEST)), (error: unknown) => {
            appError(503, /Too many queries in progress \(at most 2/)(error);
            assert.equal((error as AppError).headers['Retry-After'], '1');
            return true;
        });
        assert.equal(p.stats.refused, 1);
        assert.deepEqual((await first).items, []);
        assert.deepEqual((await second).items, [], 'the scan that waited in line for the one scan place ran after it');
        assert.equal((await p.run(q(NEWEST))).items[0]?.id, `e${String(EVENTS - 1).padStart(4, "0")}`);
    });

    it('stops a query at its time limit with 504, and the workers drop the pass part-way', async () => {
        // 40 ms: far more than planning this query on warm workers (~2 ms), far less than its pass (~200 ms).
        // On a loaded machine planning alone can outlast a limit: then no pass was split to be dropped,
        // and the case is tried again with twice the limit, until the pass was out when the limit hit.
        for (let timeoutMs = 40; ; timeoutMs *= 2) {
            assert.ok(timeoutMs <= 5120, 'the pass was never split over the workers before the time limit');
            const p = pool({ timeoutMs });
            // Warm both workers up (a worker's first query also waits for it to boot, which may take longer).
            for (let ready = 0; ready < 2;) ready = (await Promise.allSettled([p.run(q(NEWEST)), p.run(q(NEWEST))])).filter((r) => r.status === 'fulfilled').length;
            await until('the warm-up to finish', () => p.pending === 0, { timeoutMs: 10_000, intervalMs: 0 });
            const before = { ...p.stats };
            let split = false;
            const running = p.run(q(SCAN));
            const watch = setInterval(() => (split ||= p.pending === 2), 0);
            const limit = `did not finish within the ${(timeoutMs / 1000).toString().replace('.', '\\.')} s time limit`;
            await assert.rejects(running, appError(504, new RegExp(limit)));
            clearInterval(watch);
            assert.equal(p.stats.timedOut, before.timedOut + 1);
            await until('the workers to answer', () => p.pending === 0, { timeoutMs: 10_000, intervalMs: 0 });
            if (!split) continue;
            // Both halves of the pass come back stopped, not finished.
            assert.equal(p.stats.stoppedEarly, before.stoppedEarly + 2);
            break;
        }
        const ok = await pool({ timeoutMs: 0 }).run(q(SCAN));
        assert.deepEqual(ok.items, [], 'the same query completes without a limit (it was the limit that stopped it)');
    });

    it('cancels the work of a query whose caller aborts', async () => {
        const p = pool({ timeoutMs: 0 });
        const controller = new AbortController();
        const running = p.run(q(SCAN), controller.signal);
        // Wait until both halves of the pass are out to the workers, then leave.
        await until('the pass to be split over both workers', () => p.pending === 2, { timeoutMs: 10_000, intervalMs: 0 });
        controller.abort();
        await assert.rejects(running, appError(499, /cancelled/));
        await until('the workers to answer', () => p.pending === 0, { timeoutMs: 10_000, intervalMs: 0 });
        assert.equal(p.stats.cancelled, 1);
        assert.equal(p.stats.stoppedEarly, 2, 'both workers stopped their half before its end');
        assert.equal((await p.run(q(NEWEST))).items[0]?.id, `e${String(EVENTS - 1).padStart(4, "0")}`, 'the pool still serves');
    });

    it('answers a quick page while the pass of a search is running on the same workers', async () => {
        const p = pool({ timeoutMs: 0 });
        const scan = p.run(q(SCAN));
        await until('the pass to start', () => p.pending === 2, { timeoutMs: 10_000, intervalMs: 0 });
        let scanDone = false;
        void scan.then(() => (scanDone = true));
        const quick = await p.run(q(NEWEST));
        assert.equal(quick.items[0]?.id, `e${String(EVENTS - 1).padStart(4, "0")}`);
        assert.equal(scanDone, false, 'the quick page did not wait for the pass to finish');
        await scan;
    });

    it('an already aborted signal runs nothing', async () => {
        const p = pool({});
        await assert.rejects(p.run(q(SCAN), AbortSignal.abort()), appError(499, /cancelled/));
        assert.equal(p.pending, 0);
    });
});
