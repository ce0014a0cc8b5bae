import type pg from 'pg';
import { cancelBackend, pidOf } from './cancel.js';
import type { PgPageRow } from './rows.js';
import type { SortedStatements } from './statements.js';

/**
 * Whether a racer may take a connection: only while more than half the pool is free (idle or yet to
 * be opened), so that half stays free after it. Queries hold at most half the pool (the QueryGate in
 * pg/index.ts) so that reads, claims and the feed always find a connection; a racer is a query's too.
 * Else the try runs alone.
 */
export function hasRoom(pool: pg.Pool): boolean {
    const max = pool.options.max ?? 10;
    return pool.idleCount + max - pool.totalCount - 1 >= Math.ceil(max / 2);
}

type Outcome = { rows: PgPageRow[]; error?: undefined } | { rows?: undefined; error: unknown };
const outcome = (work: Promise<PgPageRow[]>): Promise<Outcome> => work.then((rows) => ({ rows }), (error: unknown) => ({ error }));

/**
 * The planner's plan (on `client`, inside a savepoint) and the matches sorted in memory (on a second
 * pooled connection, a read-only transaction in `client`'s exported snapshot, so both see the same
 * events) at once. The plan starts at once; the sort as soon as its connection is there (opening
 * one takes ~10 ms). The first usable answer wins and the other statement is cancelled from the
 * connection that is free (PostgreSQL ignores a cancel that reaches a backend between statements).
 * An in-memory sort that finds more than `max` matches is no answer: the plan's is awaited. Before,
 * the plan ran alone for TRY_MS and was then given up for the in-memory sort: both times in a row.
 */
export async function race(pool: pg.Pool, client: pg.PoolClient, planned: () => Promise<PgPageRow[]>, sorted: SortedStatements, left: () => number): Promise<PgPageRow[]> {
    const results = (await client.query('SELECT pg_export_snapshot() AS snapshot; SAVEPOINT whd_try')) as unknown as pg.QueryResult<{ snapshot: string }>[];
    const snapshot = results[0]!.rows[0]!.snapshot;
    if (!/^[0-9A-F-]+$/i.test(snapshot)) throw new Error(`unexpected snapshot id ${JSON.stringify(snapshot)}`);
    const usable = (rows: PgPageRow[]): boolean => rows.length === 0 || Number(rows[0]!.whd_matches) <= sorted.max;
    const state: { planDone: boolean; sortWon: boolean; running: pg.PoolClient | undefined; cancelling: Promise<unknown> | undefined } = { planDone: false, sortWon: false, running: undefined, cancelling: undefined };
    const plan = outcome(planned()).then((o) => ((state.planDone = true), o));
    const sort = outcome((async () => {
        const connection = await pool.connect();
        let broken: Error | undefined;
        try {
            if (state.planDone) throw new Error('the plan answered first');
            await connection.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '${snapshot}'; SET LOCAL jit = off; SET LOCAL statement_timeout = ${left()}`);
            if (state.planDone) throw new Error('the plan answered first');
            state.running = connection;
            const { rows } = await connection.query<PgPageRow>({ text: sorted.capped, values: sorted.values });
            state.running = undefined;
            if (!state.planDone && usable(rows)) {
                // The winner: the plan is cancelled from this connection before anything else is sent on
                // `client` (the caller awaits this task first).
                state.sortWon = true;
                await connection.query('SELECT pg_cancel_backend($1)', [pidOf(client)]);
            }
            return rows;
        } finally {
            state.running = undefined;
            // A cancel aimed at this connection lands before it goes back to the pool, never on its next user.
            await state.cancelling?.catch(() => undefined);
            await connection.query('ROLLBACK').catch((e: unknown) => (broken = e instanceof Error ? e : new Error(String(e))));
            connection.release(broken);
        }
    })());
    await Promise.race([plan, sort]);
    if (state.sortWon) {
        const won = await sort;
        const late = await plan;
        await client.query(late.error === undefined ? 'RELEASE SAVEPOINT whd_try' : 'ROLLBACK TO SAVEPOINT whd_try');
        return won.rows!;
    }
    // The plan answers: first, or after a sort that failed or found too many. A sort still running is cancelled.
    const done = await plan;
    const running = state.running;
    // From the plan's connection when it is free; else (it failed, or the client left and it takes no
    // more statements) from a connection of its own.
    if (running) state.cancelling = done.error === undefined ? client.query('SELECT pg_cancel_backend($1)', [pidOf(running)]).catch(() => cancelBackend(pool, running)) : cancelBackend(pool, running);
    await state.cancelling?.catch(() => undefined);
    if (done.error !== undefined) throw done.error;
    await client.query('RELEASE SAVEPOINT whd_try');
    return done.rows!;
}
