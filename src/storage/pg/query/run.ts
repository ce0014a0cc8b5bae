import type pg from 'pg';
import type { LogsPage, LogsQuery } from '../../query-types.js';
import { totalOrder } from '../../sort-order.js';
import { queryCancelled, queryTimedOut } from '../../query-errors.js';
import { guarded, storeError } from '../pool.js';
import { countShape, valueRows, type SeenValues } from './by-value.js';
import { cancelBackend } from './cancel.js';
import { cachedCount } from './count-cache.js';
import { probeCap } from './plan.js';
import { hasRoom, race } from './race.js';
import { pgPositionOf, pgRowToSummary, type PgPageRow } from './rows.js';
import { buildStatements, type PgQueryOptions, type SortedStatements, type Statements } from './statements.js';

/** Time limit of one query, ms: the SQLite query pool's (POOL_LIMITS.timeoutMs). */
export const PG_QUERY_TIMEOUT_MS = 15_000;

/**
 * Runs a GET /logs query on PostgreSQL with the SQLite backend's semantics: the same filters, the
 * same total order (sort-order.ts, NULL first ascending), the same keyset cursors and offset totals.
 * Page and total read one snapshot (a repeatable-read transaction). Rejects with BadRequestError for
 * an unusable cursor, 504 (the SQLite pool's error) past `timeoutMs` (0: no limit), 499 at once when
 * `signal` aborts (the statement running is cancelled on the server, and no other one is sent),
 * StoreUnavailableError while the database is away.
 */
export async function runPgQuery(pool: pg.Pool, q: LogsQuery, signal?: AbortSignal, timeoutMs = PG_QUERY_TIMEOUT_MS, options: PgQueryOptions = {}): Promise<LogsPage> {
    if (signal?.aborted) throw queryCancelled();
    const statements = buildStatements(q, options);
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
    const client = await guarded(() => pool.connect());
    let failed: Error | undefined;
    const work = answer(pool, stopsOnAbort(client, signal), q, statements, deadline).catch(async (error: unknown) => {
        await client.query('ROLLBACK').catch((e: unknown) => (failed = e instanceof Error ? e : new Error(String(e))));
        throw error;
    });
    // The cancel of an abort is kept: it must land before the connection goes back to the pool, never
    // on the statement of its next user.
    let cancelling: Promise<void> | undefined;
    const cancel = (): void => {
        cancelling = cancelBackend(pool, client);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    // The caller is answered at once on abort; the connection goes back once the statement stopped.
    const settled = work.finally(async () => {
        signal?.removeEventListener('abort', cancel);
        await cancelling;
        client.release(failed);
    });
    settled.catch(() => undefined);
    try {
        return await (signal ? Promise.race([settled, aborted(signal)]) : settled);
    } catch (error) {
        if (signal?.aborted) throw queryCancelled();
        if ((error as { code?: unknown }).code === '57014') throw queryTimedOut(timeoutMs);
        throw storeError(error);
    }
}

/**
 * `client` for the query's own statements, refusing each one once `signal` aborted (queryCancelled).
 * The cancel of an abort stops the statement running when it lands; one that lands between two
 * statements PostgreSQL ignores, and the next statement (the plan's try, a sort in memory, the
 * count) would run with nobody to answer. The rollback goes through `client` itself.
 */
function stopsOnAbort(client: pg.PoolClient, signal: AbortSignal | undefined): pg.PoolClient {
    if (!signal) return client;
    const query = client.query as (...args: unknown[]) => unknown;
    // Everything else (processID, the connection) is read from `client`.
    const stopping = Object.create(client) as pg.PoolClient;
    stopping.query = ((...args: unknown[]) => (signal.aborted ? Promise.reject(queryCancelled()) : query.apply(client, args))) as pg.PoolClient['query'];
    return stopping;
}

async function answer(pool: pg.Pool, client: pg.PoolClient, q: LogsQuery, s: Statements, deadline: number): Promise<LogsPage> {
    const order = totalOrder(q.sort);
    const cursorMode = q.cursor !== undefined;
    // Each statement may take what is left of the query's time; the server stops it past that.
    // A deadline of Infinity (time limit 0) means none: 0 turns the server's limit off.
    const timeLimit = (): string => `SET LOCAL statement_timeout = ${Number.isFinite(deadline) ? Math.max(1, deadline - Date.now()) : 0}`;
    const limitTime = (): Promise<unknown> => client.query(timeLimit());
    // No JIT: compiling a plan whose estimated cost passes jit_above_cost took 35 ms, a third of a
    // query's budget, for queries that run in tens of milliseconds (bench/README.md).
    // A prepared page is planned once, generic (its plan does not depend on the values); the other
    // statements of that transaction (the count) have no values that would sway a plan either.
    const generic = s.page.name ? ' SET LOCAL plan_cache_mode = force_generic_plan;' : '';
    await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off;${generic} ${timeLimit()}`);
    // The distinct values the page and the count both read, read once.
    const seen: SeenValues = new Map();
    const rows = await pageRows(pool, client, s, deadline, seen);
    let page: LogsPage;
    if (cursorMode) {
        const more = rows.length > q.limit;
        if (more) rows.length = q.limit;
        const last = rows[rows.length - 1];
        page = { items: rows.map(pgRowToSummary), next: more && last ? pgPositionOf(last, order) : null };
    } else {
        // A short page ends the result (unless it starts past the end): its position gives the count.
        const ended = rows.length < q.limit && (rows.length > 0 || q.offset === 0);
        let total = q.offset + rows.length;
        if (!ended) {
            await limitTime();
            total = await cachedCount(pool, client, await countShape(client, s, seen));
        }
        page = { items: rows.map(pgRowToSummary), total };
    }
    await client.query('COMMIT');
    return page;
}

/**
 * The page's rows. Without a filter the sort's index does not serve, the planner's plan. Else the
 * matches are counted first (b-tree filters, up to just past `max`) or estimated (substring and
 * keyed ones): fewer than make walking the sort index pay are sorted in memory at once (plan.ts),
 * and more than `max` never are, so the planner's plan runs. In between, the planner's plan runs
 * for at most `tryMs`: PostgreSQL assumes matches spread evenly along the sort index, and a filter
 * correlated with the sort made it walk most of a million-row index for a page of 100 (0.2-6 s).
 * Past that time the plan is cancelled (to a savepoint) and the matches are sorted in memory. While
 * the pool has room, the plan and the in-memory sort race instead (race). A substring filter on the
 * sort's own field is first read one matching value at a time (valueRows).
 */
async function pageRows(pool: pg.Pool, client: pg.PoolClient, s: Statements, deadline: number, seen: SeenValues): Promise<PgPageRow[]> {
    const run = async (text: string, values: unknown[]): Promise<PgPageRow[]> => (await client.query<PgPageRow>({ text, values })).rows;
    const planned = async (): Promise<PgPageRow[]> => (await client.query<PgPageRow>(s.page)).rows;
    if (s.byValue) {
        const rows = await valueRows(client, s.byValue, seen);
        if (rows) return rows;
    }
    const { sorted } = s;
    // A page reaching past `max` matches cannot come from them sorted in memory.
    if (!sorted || sorted.reach > sorted.max) return planned();
    if ('probe' in sorted) {
        const events = Number((await client.query<{ n: string | number }>('SELECT coalesce(max(seq), 0) AS n FROM events_all')).rows[0]!.n);
        const few = probeCap(sorted.reach, events);
        // One count tells both: under `few`, sort them now; past `max`, the planner's plan (a try
        // would only be given up). Counting to 40,001 through a b-tree took 4-6 ms, to 10,050 2 ms.
        const matches = Number((await client.query<{ n: string | number }>(sorted.probe, [...s.count.values, Math.max(few, sorted.max + 1)])).rows[0]!.n);
        if (matches < few) return run(sorted.text, sorted.values);
        if (matches > sorted.max) return planned();
    } else if (await tooMany(client, s, sorted)) return planned();
    const left = (): number => (Number.isFinite(deadline) ? Math.max(1, deadline - Date.now()) : 0);
    // Each savepoint step and the time limit it sets go in one round trip (a simple query of two statements).
    const step = (savepoint: string, ms: number): Promise<unknown> => client.query(`${savepoint} whd_try; SET LOCAL statement_timeout = ${ms}`);
    const whole = left();
    // Only when the try ends well before the query's own limit; 0 is no limit at all.
    if (whole !== 0 && whole <= 2 * sorted.tryMs) return planned();
    // The plan and the in-memory sort at once, on a second connection in the same snapshot.
    if (sorted.tryMs > 0 && sorted.race && hasRoom(pool)) return race(pool, client, planned, sorted, left);
    // A try of 0 ms goes straight to the in-memory sort.
    if (sorted.tryMs > 0) {
        await step('SAVEPOINT', sorted.tryMs);
        try {
            const rows = await planned();
            await step('RELEASE SAVEPOINT', left());
            return rows;
        } catch (error) {
            // Only the try's own time limit; a cancel (the client left) ends the query.
            if ((error as { code?: unknown }).code !== '57014' || !/statement timeout/.test(String((error as Error).message))) throw error;
            await step('ROLLBACK TO SAVEPOINT', left());
        }
    }
    // An empty page means few matches: past the cap, the page (within reach) would hold some. More
    // than an estimate said (keyed and substring filters): the planner's plan after all.
    const rows = await run(sorted.capped, sorted.values);
    if (rows.length === 0 || Number(rows[0]!.whd_matches) <= sorted.max) return rows;
    return planned();
}

/**
 * Whether the planner estimates plainly more matches than `max`, so that sorting them in memory
 * would only be started to be given up (a count through a trigram index would do the search itself).
 */
async function tooMany(client: pg.PoolClient, s: Statements, sorted: SortedStatements & { estimate: string }): Promise<boolean> {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(sorted.estimate, s.count.values);
    return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'] > 2 * sorted.max;
}

const aborted = (signal: AbortSignal): Promise<never> => new Promise((_, reject) => signal.addEventListener('abort', () => reject(queryCancelled()), { once: true }));
