import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { runPgQuery } from '../../src/storage/pg/query/run.js';
import { migrate } from '../../src/storage/pg/schema.js';
import { pgServerFor, type PgServer } from '../helpers/pg-server.js';
import { pgQueryTestsRun } from './query-fixture.js';

// The planner's plan and the in-memory sort run at once on two connections (query/run.ts, race).
// 200,000 events whose URLs grow with their position: the last 10,000 are large (size >= 5000), so
// walking the URL index for them reads 190,000 rows first, while every 20th event is slow
// (processingTime 5), spread along it.
const EVENTS = 200_000;
const FILL = `INSERT INTO events (seq, id, webhook_id, ts, method, status_code, size, processing_time, request_id, request_url, content_type, remote_ip, user_agent, headers, query, response_headers, response_body, body_kind)
    SELECT g, 'ev' || lpad(g::text, 7, '0'), 'wh', 1700000000000 + g * 1000, 'POST', 200, CASE WHEN g > ${EVENTS - 10_000} THEN 5000 + g % 100 ELSE g % 1000 END,
        CASE WHEN g % 20 = 0 THEN 5 ELSE 1 END, 'r' || g, '/webhook/' || lpad(g::text, 7, '0'), 'application/json', '10.0.0.1', 'agent', '{}', '{}', '{}', '', 'empty'
    FROM generate_series(1, ${EVENTS}) g`;

describe.runIf(pgQueryTestsRun)('PostgreSQL queries: the planner\'s plan and the in-memory sort race on two connections', () => {
    let server: PgServer;
    let url: string;
    /** Statements sent, with the backend that ran each. */
    let sent: { pid: number; text: string; error?: string; ended?: boolean }[] = [];
    /** Called with each statement as it is sent. */
    let onSend: (text: string) => void = () => undefined;
    const pools: pg.Pool[] = [];
    /** A pool whose connections record what they send. */
    const recording = (max: number): pg.Pool => {
        const pool = new pg.Pool({ connectionString: url, max });
        pool.on('error', () => undefined);
        pool.on('connect', (client) => {
            const query = client.query.bind(client) as (...args: unknown[]) => unknown;
            (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
                const first = args[0];
                const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
                const entry: (typeof sent)[number] = { pid: (client as unknown as { processID: number }).processID, text };
                sent.push(entry);
                onSend(text);
                const result = query(...args);
                // How the statement ended: the server's error code, if any.
                if (result instanceof Promise) {
                    result.then(
                        () => void (entry.ended = true),
                        (error: { code?: string }) => void ((entry.error = error.code ?? 'error'), (entry.ended = true)),
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
        await admin.query(FILL);
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
    /** The leftovers once they have had `ms` to end (a losing connection ends in the background). */
    const settled = async (ms = 2000): Promise<string[]> => {
        const started = Date.now();
        while ((await leftovers()).length > 0 && Date.now() - started < ms) await new Promise((r) => setTimeout(r, 20));
        return leftovers();
    };

    it('a plan that walks the sort index for matches at its far end loses to the in-memory sort, is cancelled, and the answer is the plan\'s', async () => {
        const pool = recording(4);
        for (const qs of ['size[gte]=5000&sort=requestUrl:asc&cursor=&limit=25', 'size[gte]=5000&sort=requestUrl:asc&limit=10&offset=30']) {
            const expected = await planned(qs);
            assert.equal(expected.items.length > 0, true);
            sent = [];
            const q = parseLogsQuery(new URLSearchParams(qs));
            assert.deepEqual(await runPgQuery(pool, q), expected, qs);
            const main = sent.find((s) => s.text.startsWith('BEGIN ISOLATION LEVEL'))!.pid;
            const racer = sent.find((s) => s.text.includes('SET TRANSACTION SNAPSHOT'));
            assert.ok(racer && racer.pid !== main, `${qs}: the in-memory sort ran on a second connection in the exported snapshot`);
            assert.ok(sent.some((s) => s.pid === racer.pid && s.text.includes('pg_cancel_backend')), `${qs}: the winner cancelled the plan`);
            assert.ok(sent.some((s) => s.pid === main && s.text === 'ROLLBACK TO SAVEPOINT whd_try'), `${qs}: the plan was cancelled, its savepoint rolled back`);
            assert.deepEqual(await settled(), [], `${qs}: nothing left running or open`);
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
            assert.deepEqual(await settled(), [], `${qs}: nothing left running or open`);
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
        assert.deepEqual(await settled(), []);
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
        // index, and the in-memory sort has 35,000 matches to sort. The client leaves 5 ms after the
        // sort's statement is sent, while both run.
        const q = parseLogsQuery(new URLSearchParams('startTime=2023-11-16T20:03:21.000Z&sort=requestUrl:asc&cursor=&limit=50'));
        const controller = new AbortController();
        sent = [];
        onSend = (text) => {
            if (text.includes('whd_matches')) setTimeout(() => controller.abort(), 5);
        };
        try {
            await assert.rejects(runPgQuery(pool, q, controller.signal), (error: { status?: number }) => error.status === 499);
        } finally {
            onSend = () => undefined;
        }
        assert.deepEqual(await settled(5000), [], 'both stopped within 5 s');
        const plan = sent.find((s) => s.text.startsWith('SELECT e.id') && !s.text.includes('whd_matches'));
        const sort = sent.find((s) => s.text.includes('whd_matches'));
        assert.ok(plan && sort && plan.pid !== sort.pid, 'both ran, on two connections');
        // The cancel goes out on a connection of its own (~10 ms): a statement may finish first.
        assert.ok(plan.ended !== undefined && sort.ended !== undefined, 'both ended');
        assert.ok([plan, sort].some((st) => st.error === '57014'), 'what still ran when the client left was cancelled');
    }, 60_000);
});
