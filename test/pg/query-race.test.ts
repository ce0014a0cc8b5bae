import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { runPgQuery } from '../../src/storage/pg/query/run.js';
import { migrate } from '../../src/storage/pg/schema.js';
import { pgServerFor, type PgServer } from '../helpers/pg-server.js';
import { pgQueryTestsRun } from './query-fixture.js';

// The planner's plan and the in-memory sort run at once on two connections (query/race.ts).
// 200,000 events whose URLs grow with their position: the last 10,000 are large (size >= 5000), so
// walking the URL index for them reads 190,000 rows first, while every 20th event is slow
// (processingTime 5), spread along it.
// Which of two statements of tens of milliseconds answers first depends on the machine's load: a
// test that needs one winner (or both still running) holds a statement back on the server instead
// (`hold`: it runs after a pg_sleep, as one statement, so a cancel stops it like any other).
const EVENTS = 200_000;
const FILL = `INSERT INTO events (seq, id, webhook_id, ts, method, status_code, size, processing_time, request_id, request_url, content_type, remote_ip, user_agent, headers, query, response_headers, response_body, body_kind)
    SELECT g, 'ev' || lpad(g::text, 7, '0'), 'wh', 1700000000000 + g * 1000, 'POST', 200, CASE WHEN g > ${EVENTS - 10_000} THEN 5000 + g % 100 ELSE g % 1000 END,
        CASE WHEN g % 20 = 0 THEN 5 ELSE 1 END, 'r' || g, '/webhook/' || lpad(g::text, 7, '0'), 'application/json', '10.0.0.1', 'agent', '{}', '{}', '{}', '', 'empty'
    FROM generate_series(1, ${EVENTS}) g`;

describe.runIf(pgQueryTestsRun)('PostgreSQL queries: the planner\'s plan and the in-memory sort race on two connections', () => {
    let server: PgServer;
    let url: string;
    /**
     * Statements sent, with the backend that ran each, how each ended, and its part in a race: `plan`,
     * the planner's plan (the statement after the snapshot's export on that connection), or `sort`,
     * the matches sorted in memory.
     */
    type Sent = { pid: number; text: string; role?: 'plan' | 'sort'; error?: string; ended?: boolean };
    let sent: Sent[] = [];
    /** Called with each statement as it is sent, and as its answer comes (before the query sees it). */
    let onSend: (entry: Sent) => void = () => undefined;
    let onEnd: (entry: Sent) => void = () => undefined;
    /** Seconds the server waits before it runs a statement of this part (0: none). */
    let hold: Record<'plan' | 'sort', number> = { plan: 0, sort: 0 };
    const pools: pg.Pool[] = [];
    /** A pool whose connections record what they send. */
    const recording = (max: number): pg.Pool => {
        const pool = new pg.Pool({ connectionString: url, max });
        pool.on('error', () => undefined);
        pool.on('connect', (client) => {
            const query = client.query.bind(client) as (...args: unknown[]) => unknown;
            let exported = false;
            (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
                const first = args[0];
                const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
                const entry: Sent = { pid: (client as unknown as { processID: number }).processID, text };
                if (exported) entry.role = 'plan';
                else if (text.includes('whd_matches')) entry.role = 'sort';
                exported = text.includes('pg_export_snapshot');
                sent.push(entry);
                onSend(entry);
                const seconds = entry.role ? hold[entry.role] : 0;
                if (seconds > 0 && typeof first === 'object') {
                    // The same statement, its rows the same, once the server has slept.
                    args[0] = { ...first, text: `SELECT w.* FROM (SELECT pg_sleep(${seconds})) whd_hold, LATERAL (${text}) w` };
                }
                const result = query(...args);
                // How the statement ended: the server's error code, if any.
                if (result instanceof Promise) {
                    result.then(
                        () => void ((entry.ended = true), onEnd(entry)),
                        (error: { code?: string }) => void ((entry.error = error.code ?? 'error'), (entry.ended = true), onEnd(entry)),
                    );
                }
                return result;
            };
        });
        pools.push(pool);
        return pool;
    };
    let admin: pg.Pool;

    beforeAll(async () => {
        // A server of its own: the races below are decided in milliseconds, undisturbed by other files' databases.
        server = await pgServerFor('own');
        url = await server.createDatabase('race');
        admin = new pg.Pool({ connectionString: url, max: 2 });
        admin.on('error', () => undefined);
        await migrate(admin);
        // The same schema, filled faster: the events table's secondary indexes are built once over the
        // filled table (CREATE INDEX sorts once) instead of updated row by row: 6.8 s → 3.5 s.
        const { rows: indexes } = await admin.query<{ name: string; def: string }>(
            `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i WHERE i.schemaname = current_schema() AND i.tablename = 'events'
               AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
        );
        for (const { name } of indexes) await admin.query(`DROP INDEX ${name}`);
        await admin.query(FILL);
        for (const { def } of indexes) await admin.query(def);
        await admin.query('ANALYZE');
    }, 180_000);
    afterAll(async () => {
        await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
        await admin?.end();
        await server?.stop();
    });

    /** The page and its rows' ids as the planner's plan alone gives them (no try, no race). */
    const planned = async (qs: string) => runPgQuery(admin, parseLogsQuery(new URLSearchParams(qs)), undefined, 0, { tryMs: 1_000_000, race: false });

    /** What still runs or holds a transaction open on the database besides the asking connection. */
    const leftovers = async (): Promise<string[]> => {
        const { rows } = await admin.query<{ state: string; query: string }>(
            `SELECT state, query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND (state = 'active' OR state LIKE 'idle in transaction%')`,
        );
        return rows.map((r) => `${r.state}: ${r.query.slice(0, 80)}`);
    };
    /**
     * The leftovers once they have had `ms` to end, and `pool`'s connections not back in it: a losing
     * connection ends, and goes back, in the background (after the answer). The last look's.
     */
    const settled = async (pool: pg.Pool, ms = 2000): Promise<string[]> => {
        const started = Date.now();
        for (;;) {
            const left = await leftovers();
            const out = pool.totalCount - pool.idleCount;
            if (out > 0) left.push(`${out} connection(s) not back in the pool`);
            if (left.length === 0 || Date.now() - started >= ms) return left;
            await new Promise((r) => setTimeout(r, 20));
        }
    };
    afterEach(() => {
        hold = { plan: 0, sort: 0 };
        onSend = () => undefined;
        onEnd = () => undefined;
    });

    it('a plan slower than the in-memory sort loses: the sort\'s connection cancels it, its savepoint is rolled back, and the answer is the plan\'s', async () => {
        const pool = recording(4);
        // The plan walks 190,000 rows of the URL index, the sort has 10,000 matches: the sort wins by
        // ~10 ms on an idle machine. Held back 10 s, the plan loses whatever the load.
        hold = { plan: 10, sort: 0 };
        for (const qs of ['size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25', 'size[gte]=5000&sort=requestUrl:asc&limit=10&offset=30']) {
            const expected = await planned(qs);
            assert.equal(expected.items.length > 0, true);
            sent = [];
            const q = parseLogsQuery(new URLSearchParams(qs));
            const started = Date.now();
            assert.deepEqual(await runPgQuery(pool, q), expected, qs);
            assert.ok(Date.now() - started < 5000, `${qs}: answered by the sort, not the plan held back`);
            const main = sent.find((s) => s.text.startsWith('BEGIN ISOLATION LEVEL'))!.pid;
            const racer = sent.find((s) => s.text.includes('SET TRANSACTION SNAPSHOT'));
            assert.ok(racer && racer.pid !== main, `${qs}: the in-memory sort ran on a second connection in the exported snapshot`);
            assert.ok(sent.some((s) => s.pid === racer.pid && s.text.includes('pg_cancel_backend')), `${qs}: the winner cancelled the plan`);
            assert.equal(sent.find((s) => s.role === 'plan')?.error, '57014', `${qs}: the plan was cancelled on the server`);
            assert.ok(sent.some((s) => s.pid === main && s.text === 'ROLLBACK TO SAVEPOINT whd_try'), `${qs}: the plan's savepoint rolled back`);
            assert.deepEqual(await settled(pool), [], `${qs}: nothing left running or open`);
        }
    }, 60_000);

    it('matches spread along the sort index: whoever wins, the answer is the plan\'s and both connections end clean', async () => {
        const pool = recording(4);
        for (const qs of ['processingTime[gte]=5&sort=requestUrl:desc&cursor=&limit=25', 'processingTime[gte]=5&sort=requestUrl:asc&limit=10&offset=40']) {
            const expected = await planned(qs);
            sent = [];
            assert.deepEqual(await runPgQuery(pool, parseLogsQuery(new URLSearchParams(qs))), expected, qs);
            assert.ok(sent.some((s) => s.text.includes('pg_export_snapshot')), `${qs}: raced`);
            // The plan may answer before the second connection is even open: the sort then never starts.
            const sorting = sent.find((s) => s.text.includes('whd_matches'));
            const cancels = sent.filter((s) => s.text.includes('pg_cancel_backend')).length;
            assert.ok(!sorting || cancels <= 1, `${qs}: at most one cancel`);
            assert.deepEqual(await settled(pool), [], `${qs}: nothing left running or open`);
        }
        // The racers went back to the pool, out of their transactions: the pool did not grow past two.
        assert.ok(pool.totalCount <= 2, `connections: ${pool.totalCount}`);
    }, 60_000);

    it('with no connection to spare the plan is tried alone, as before the race, with the same answer', async () => {
        const pool = recording(1);
        const qs = 'size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25';
        const expected = await planned(qs);
        sent = [];
        assert.deepEqual(await runPgQuery(pool, parseLogsQuery(new URLSearchParams(qs))), expected);
        assert.ok(!sent.some((s) => s.text.includes('SET TRANSACTION SNAPSHOT')), 'no race');
        assert.ok(sent.some((s) => s.text.startsWith('SAVEPOINT whd_try')), 'the try alone');
        assert.deepEqual(await settled(pool), []);
    }, 60_000);

    it('a racer leaves half the pool free: with others holding connections, the plan is tried alone', async () => {
        const pool = recording(4);
        const qs = 'size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25';
        const expected = await planned(qs);
        // Held by others (reads, claims): the query's own connection would leave one free, under half.
        const held = await Promise.all([pool.connect(), pool.connect()]);
        try {
            sent = [];
            assert.deepEqual(await runPgQuery(pool, parseLogsQuery(new URLSearchParams(qs))), expected);
            assert.ok(!sent.some((s) => s.text.includes('pg_export_snapshot')), 'no race');
        } finally {
            for (const client of held) client.release();
        }
        // Released, the pool has room again and the same query races.
        sent = [];
        assert.deepEqual(await runPgQuery(pool, parseLogsQuery(new URLSearchParams(qs))), expected);
        assert.ok(sent.some((s) => s.text.includes('pg_export_snapshot')), 'raced');
    }, 60_000);

    it('a client that leaves mid-race stops both statements', async () => {
        const pool = recording(4);
        // The last 35,000 events by time are the last by URL too: the plan walks 165,000 rows of the URL
        // index, and the in-memory sort has 35,000 matches to sort, each in ~20-30 ms. Both are held
        // back 10 s, so both still run when the client leaves, 100 ms after the sort's statement is sent.
        hold = { plan: 10, sort: 10 };
        const q = parseLogsQuery(new URLSearchParams('startTime=2023-11-16T20:03:21.000Z&sort=requestUrl:asc&cursor=&limit=50'));
        const controller = new AbortController();
        sent = [];
        onSend = (entry) => {
            if (entry.role === 'sort') setTimeout(() => controller.abort(), 100);
        };
        const started = Date.now();
        await assert.rejects(runPgQuery(pool, q, controller.signal), (error: { status?: number }) => error.status === 499);
        assert.deepEqual(await settled(pool, 5000), [], 'both stopped within 5 s');
        assert.ok(Date.now() - started < 5000, 'stopped, not run to their end');
        const plan = sent.find((s) => s.role === 'plan');
        const sort = sent.find((s) => s.role === 'sort');
        assert.ok(plan && sort && plan.pid !== sort.pid, 'both ran, on two connections');
        assert.deepEqual([plan.error, sort.error], ['57014', '57014'], 'both were cancelled on the server');
    }, 60_000);

    it('a client that leaves as its query commits does not cancel the next statement on that connection', async () => {
        // Bug: the cancel of an abort goes out on a connection of its own (~10 ms to open) and the
        // query's connection went back to the pool as soon as its own work ended, so a cancel sent
        // near the end of a query stopped whatever the connection's next user ran.
        const pool = recording(1);
        const controller = new AbortController();
        sent = [];
        onSend = (entry) => {
            if (entry.text === 'COMMIT') controller.abort();
        };
        await assert.rejects(runPgQuery(pool, parseLogsQuery(new URLSearchParams('limit=5')), controller.signal), (error: { status?: number }) => error.status === 499);
        onSend = () => undefined;
        // The pool's one connection: the same backend, once the query has given it back.
        const { rows } = await pool.query<{ ok: number }>('SELECT 1 AS ok FROM pg_sleep(1)');
        assert.deepEqual(rows, [{ ok: 1 }]);
        assert.equal(new Set(sent.map((s) => s.pid)).size, 1, 'one connection');
        assert.deepEqual(await settled(pool), []);
    }, 60_000);

    it('a client that leaves as the plan answers still stops the sort in memory, from a connection of its own', async () => {
        // The plan's connection then takes no more statements: the cancel of the sort goes out on one
        // of its own. The sort is held back 10 s, so it still runs.
        const pool = recording(4);
        hold = { plan: 0, sort: 10 };
        const controller = new AbortController();
        sent = [];
        onEnd = (entry) => {
            if (entry.role === 'plan') controller.abort();
        };
        const started = Date.now();
        const q = parseLogsQuery(new URLSearchParams('size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25'));
        await assert.rejects(runPgQuery(pool, q, controller.signal), (error: { status?: number }) => error.status === 499);
        assert.deepEqual(await settled(pool, 5000), [], 'stopped within 5 s');
        assert.ok(Date.now() - started < 5000, 'the sort was stopped, not run to its end');
        assert.equal(sent.find((s) => s.role === 'plan')?.error, undefined, 'the plan answered');
        assert.equal(sent.find((s) => s.role === 'sort')?.error, '57014', 'the sort was cancelled on the server');
    }, 60_000);

    it('a client that leaves between two statements stops the query there: nothing but its rollback is sent after', async () => {
        // Bug: the cancel of an abort stops the statement running when it lands; one that lands between
        // two statements is ignored by PostgreSQL, and the query went on (its plan's try, a sort in
        // memory, the count) with nobody to answer. The client leaves as the probe count is sent.
        const pool = recording(4);
        const controller = new AbortController();
        sent = [];
        let leftAt = -1;
        onSend = (entry) => {
            if (leftAt < 0 && entry.text.startsWith('SELECT count(*) AS n FROM (SELECT 1')) {
                controller.abort();
                leftAt = sent.length;
            }
        };
        const q = parseLogsQuery(new URLSearchParams('size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25'));
        await assert.rejects(runPgQuery(pool, q, controller.signal), (error: { status?: number }) => error.status === 499);
        assert.ok(leftAt > 0, 'the probe was sent');
        assert.deepEqual(await settled(pool), []);
        assert.deepEqual(sent.slice(leftAt).map((s) => s.text), ['ROLLBACK']);
    }, 60_000);
});
