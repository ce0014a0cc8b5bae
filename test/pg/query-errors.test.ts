import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { AppError, BadRequestError, StoreUnavailableError } from '../../src/errors.js';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { runPgQuery } from '../../src/storage/pg/query/run.js';
import type { LogsQuery } from '../../src/storage/query-types.js';
import { differentialEvents } from './query-events.js';
import { openTwinStores, pgQueryTestsRun, type TwinStores } from './query-fixture.js';

// How a PostgreSQL query ends when it cannot answer: the errors the SQLite query pool gives.

const query = (qs: string): LogsQuery => parseLogsQuery(new URLSearchParams(qs));
// Two letters: too short for a trigram, so PostgreSQL reads every body (made ~500 KB each below).
const SLOW = 'body=qz&limit=10';
// The same for request headers (made ~256 KB each below), sorted by size: a filter the sort index
// does not serve, so the planner's plan gets a try of 40 ms (pg/query/run.ts).
const SLOW_HEADERS = 'headers=qz&sort=size:asc&limit=5';

/** The statements of this database still running a body search, as the server lists them. */
async function runningSearches(twins: TwinStores): Promise<number> {
    const { rows } = await twins.pool.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%ILIKE%' AND pid <> pg_backend_pid()`);
    return Number(rows[0]!.n);
}

describe.runIf(pgQueryTestsRun)('PostgreSQL GET /logs query errors: time limit, cancel, unusable cursor, database away', () => {
    let twins: TwinStores;
    beforeAll(async () => {
        twins = await openTwinStores(differentialEvents(400), 'own');
        await twins.pool.query(`UPDATE bodies SET text = repeat('abc order ', 50000) WHERE text IS NOT NULL`);
        // Request headers of ~256 KB each: a search of them (not a body search) is slow too.
        await twins.pool.query(`UPDATE events SET headers = '{"x":"' || repeat(md5(seq::text), 8000) || '"}'`);
    }, 120_000);
    afterAll(() => twins?.close());

    it('a query past its time limit is stopped on the server and rejects with the 504 of the SQLite pool', async () => {
        const started = Date.now();
        const error = await runPgQuery(twins.pool, query(SLOW), undefined, 50).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof AppError && error.status === 504, `504, got ${String(error)}`);
        assert.match(error.message, /did not finish within the 0.05 s time limit/);
        assert.deepEqual(error.extra, { timeLimitMs: 50 });
        assert.ok(Date.now() - started < 5000, 'stopped near its limit');
        // The same query with time to finish answers (it was the limit, not the query, that failed).
        assert.equal((await runPgQuery(twins.pool, query(SLOW), undefined, 60_000)).total, 0);
        // A time limit of 0 means none, as in the SQLite pool.
        assert.equal((await runPgQuery(twins.pool, query(SLOW), undefined, 0)).total, 0);
    }, 120_000);

    it('an abort answers 499 at once and cancels the statement on the server', async () => {
        const controller = new AbortController();
        const pending = runPgQuery(twins.pool, query(SLOW), controller.signal, 60_000);
        await new Promise((r) => setTimeout(r, 100));
        const aborted = Date.now();
        controller.abort();
        const error = await pending.then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof AppError && error.status === 499, `499, got ${String(error)}`);
        assert.ok(Date.now() - aborted < 500, 'answered at once');
        let left = await runningSearches(twins);
        for (let i = 0; left > 0 && i < 40; i++) {
            await new Promise((r) => setTimeout(r, 50));
            left = await runningSearches(twins);
        }
        assert.equal(left, 0, 'no search left running on the server');
        await assert.rejects(runPgQuery(twins.pool, query('limit=1'), AbortSignal.abort()), (e: unknown) => e instanceof AppError && e.status === 499);
    }, 120_000);

    it('a plan that runs out of its try goes back to a savepoint and the matches are sorted in memory: the answer of the plan run to its end', async () => {
        const q = query(SLOW_HEADERS);
        // A try long enough for the planner's plan to finish: its own answer.
        // No race (query-race.test.ts): the try alone, as with no connection to spare.
        const full = await runPgQuery(twins.pool, q, undefined, 60_000, { tryMs: 30_000, race: false });
        const started = performance.now();
        const page = await runPgQuery(twins.pool, q, undefined, 60_000, { race: false });
        const fullMs = performance.now() - started;
        assert.ok(fullMs > 100, `the search takes longer than the 40 ms try (${fullMs.toFixed(0)} ms)`);
        // Past its 40 ms the transaction went on from the savepoint (a statement in a failed
        // transaction would be refused), and the in-memory sort answered the same page.
        assert.deepEqual(page, full);
        assert.deepEqual(await runPgQuery(twins.pool, query(`${SLOW_HEADERS}&offset=3`), undefined, 60_000, { race: false }), await runPgQuery(twins.pool, query(`${SLOW_HEADERS}&offset=3`), undefined, 60_000, { tryMs: 30_000, race: false }));
        // Raced, the same answers.
        assert.deepEqual(await runPgQuery(twins.pool, q, undefined, 60_000), full);
    }, 120_000);

    it('an abort during the try answers 499 and leaves nothing running: a cancel is not a try that ran out', async () => {
        const controller = new AbortController();
        const pending = runPgQuery(twins.pool, query(SLOW_HEADERS), controller.signal, 120_000, { tryMs: 30_000, race: false });
        // Cancelled once the planner's plan is running on the server, inside its try.
        for (let i = 0; i < 100 && (await runningSearches(twins)) === 0; i++) await new Promise((r) => setTimeout(r, 10));
        assert.equal(await runningSearches(twins), 1, 'the search is running');
        controller.abort();
        const error = await pending.then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof AppError && error.status === 499, `499, got ${String(error)}`);
        // The cancel lands within moments; after it, no other search may start (the in-memory sort
        // of a try that ran out would, ~0.2 s long here).
        for (let i = 0; i < 100 && (await runningSearches(twins)) > 0; i++) await new Promise((r) => setTimeout(r, 5));
        const seen: number[] = [];
        for (let i = 0; i < 20; i++) {
            seen.push(await runningSearches(twins));
            await new Promise((r) => setTimeout(r, 10));
        }
        assert.deepEqual(seen.filter((n) => n > 0), [], 'no search running after the cancel');
    }, 120_000);

    it('a cursor PostgreSQL cannot compare (a NUL in a text value) is a 400 naming the cursor', async () => {
        const q = query('sort=userAgent:asc&cursor=&limit=5');
        q.cursor = { values: ['a\u0000b', 0], id: 'x' };
        await assert.rejects(runPgQuery(twins.pool, q), (e: unknown) => e instanceof BadRequestError && (e.extra as { parameter?: string }).parameter === 'cursor');
        const numeric = query('sort=size:asc&cursor=&limit=5');
        numeric.cursor = { values: ['big', 0], id: 'x' };
        await assert.rejects(runPgQuery(twins.pool, numeric), (e: unknown) => e instanceof BadRequestError);
    });

    it('while the database is away a query rejects with 503 StoreUnavailableError, and answers again once it is back', async () => {
        await twins.server.pause();
        try {
            await assert.rejects(runPgQuery(twins.pool, query('limit=1')), (e: unknown) => e instanceof StoreUnavailableError && e.status === 503);
        } finally {
            await twins.server.resume();
        }
        let answered = false;
        for (let i = 0; i < 50 && !answered; i++) {
            answered = await runPgQuery(twins.pool, query('limit=1')).then((p) => p.total === 400, () => false);
            if (!answered) await new Promise((r) => setTimeout(r, 100));
        }
        assert.ok(answered, 'answers again after the database came back');
    }, 60_000);
});
