import pg from 'pg';
import { BadRequestError } from '../../../errors.js';
import type { LogsPage, LogsQuery } from '../../query-types.js';
import { totalOrder } from '../../sort-order.js';
import { queryCancelled, queryTimedOut } from '../../query-errors.js';
import { guarded, storeError } from '../pool.js';
import { cachedCount, type CountShape } from './count-cache.js';
import { keysetCondition, orderByClause, orderByKeys, sortKeyColumns, UnusableCursorError } from './order.js';
import { mayProbe, probeCap } from './plan.js';
import { Params } from './params.js';
import { pgPositionOf, pgRowToSummary, SELECT_SUMMARY, type PgPageRow } from './rows.js';
import { buildWhere } from './where.js';

/** Time limit of one query, ms: the SQLite query pool's (POOL_LIMITS.timeoutMs). */
export const PG_QUERY_TIMEOUT_MS = 15_000;

/** The SQL of one GET /logs query: the page statement and, for offset mode, the count statement. */
interface Statements {
    page: { text: string; values: unknown[] };
    /** The same page with the matches fetched first and sorted in memory (plan.ts), when worth probing. */
    sorted?: { text: string; probe: string; reach: number };
    count: CountShape;
}

/** An event table joined to its bodies, as `e` with the body text as `e.body_text` (pulled up into a plain join). */
const withBody = (events: string, bodies: string): string => `(SELECT e.*, b.text AS body_text FROM ${events} e JOIN ${bodies} b ON b.seq = e.seq) e`;
const EVENTS_WITH_BODY = withBody('events', 'bodies');
const INBOX_WITH_BODY = withBody('events_inbox', 'bodies_inbox');

const whereClause = (conditions: readonly string[]): string => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/** Builds the statements of `q`; throws BadRequestError for a cursor PostgreSQL cannot compare. */
export function buildStatements(q: LogsQuery): Statements {
    const order = totalOrder(q.sort);
    const p = new Params();
    const where = buildWhere(q.filters, p);
    const whereValues = p.values.length;
    const onBody = where.bodies.length > 0;
    // A body filter reads each table joined to its own bodies (inbox to inbox; a row moves with its
    // body): joined as the two UNION ALL views, PostgreSQL walked every event against the matches.
    const from = onBody ? 'events_with_body e' : 'events_all e';
    const conditions = [...where.events, ...where.bodies];
    const count: CountShape = { from, conditions: [...conditions], values: p.values.slice(0, whereValues) };
    const cursorMode = q.cursor !== undefined;
    if (q.cursor) {
        try {
            conditions.push(keysetCondition(order, q.cursor, p));
        } catch (error) {
            if (error instanceof UnusableCursorError) throw new BadRequestError("Parameter 'cursor' is not a valid cursor: pass nextCursor from a previous page unchanged, or an empty cursor= to start", { parameter: 'cursor' });
            throw error;
        }
    }
    const columns = cursorMode ? `${SELECT_SUMMARY}, ${sortKeyColumns(order)}` : SELECT_SUMMARY;
    const limit = p.bind(cursorMode ? q.limit + 1 : q.limit, 'bigint');
    const offset = p.bind(cursorMode ? 0 : q.offset, 'bigint');
    let page = { text: `SELECT ${columns} FROM ${from}${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${limit} OFFSET ${offset}`, values: p.values };
    if (onBody) {
        // The page from each table on its own, merged: the indexed tables get the plans a single
        // table gets (the sort index walked, or the body's trigram index first), the inbox is small.
        const reach = p.bind((cursorMode ? q.limit + 1 : q.offset + q.limit), 'bigint');
        const branch = (source: string): string =>
            `(SELECT ${SELECT_SUMMARY}, ${sortKeyColumns(order)} FROM ${source}${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${reach})`;
        page = { text: `SELECT w.* FROM (${branch(EVENTS_WITH_BODY)} UNION ALL ${branch(INBOX_WITH_BODY)}) w ORDER BY ${orderByKeys(order)} LIMIT ${limit} OFFSET ${offset}`, values: p.values };
    }
    if (!mayProbe(q.filters, order)) return { page, count };
    // OFFSET 0 keeps PostgreSQL from pulling the ORDER BY into the subquery, so the matches come
    // through the filters' indexes and are sorted after.
    const keys = `${SELECT_SUMMARY}, ${sortKeyColumns(order)}`;
    const sorted = {
        text: `SELECT w.* FROM (SELECT ${keys} FROM ${from}${whereClause(conditions)} OFFSET 0) w ORDER BY ${orderByKeys(order)} LIMIT ${limit} OFFSET ${offset}`,
        // The filters' values, then the cap: $${count.values.length + 1}.
        probe: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from}${whereClause(count.conditions)} LIMIT $${count.values.length + 1}::bigint) s`,
        reach: (cursorMode ? 0 : q.offset) + q.limit,
    };
    return { page, sorted, count };
}

/**
 * Runs a GET /logs query on PostgreSQL with the SQLite backend's semantics: the same filters, the
 * same total order (sort-order.ts, NULL first ascending), the same keyset cursors and offset totals.
 * Page and total read one snapshot (a repeatable-read transaction). Rejects with BadRequestError for
 * an unusable cursor, 504 (the SQLite pool's error) past `timeoutMs` (0: no limit), 499 when `signal` aborts (the
 * statement is cancelled on the server), StoreUnavailableError while the database is away.
 */
export async function runPgQuery(pool: pg.Pool, q: LogsQuery, signal?: AbortSignal, timeoutMs = PG_QUERY_TIMEOUT_MS): Promise<LogsPage> {
    if (signal?.aborted) throw queryCancelled();
    const statements = buildStatements(q);
    const deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
    const client = await guarded(() => pool.connect());
    let failed: Error | undefined;
    const work = answer(pool, client, q, statements, deadline).catch(async (error: unknown) => {
        await client.query('ROLLBACK').catch((e: unknown) => (failed = e instanceof Error ? e : new Error(String(e))));
        throw error;
    });
    const cancel = (): void => void cancelBackend(pool, client);
    signal?.addEventListener('abort', cancel, { once: true });
    // The caller is answered at once on abort; the connection goes back once the statement stopped.
    const settled = work.finally(() => {
        signal?.removeEventListener('abort', cancel);
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

async function answer(pool: pg.Pool, client: pg.PoolClient, q: LogsQuery, s: Statements, deadline: number): Promise<LogsPage> {
    const order = totalOrder(q.sort);
    const cursorMode = q.cursor !== undefined;
    // Each statement may take what is left of the query's time; the server stops it past that.
    // A deadline of Infinity (time limit 0) means none: 0 turns the server's limit off.
    const limitTime = (): Promise<unknown> => client.query(`SET LOCAL statement_timeout = ${Number.isFinite(deadline) ? Math.max(1, deadline - Date.now()) : 0}`);
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await limitTime();
    const rows = (await client.query<PgPageRow>(await sortInMemory(client, s) ? { text: s.sorted!.text, values: s.page.values } : s.page)).rows;
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
            total = await cachedCount(pool, client, s.count);
        }
        page = { items: rows.map(pgRowToSummary), total };
    }
    await client.query('COMMIT');
    return page;
}

/** Whether the filters match fewer events than make walking the sort index pay (plan.ts): counted up to the cap. */
async function sortInMemory(client: pg.PoolClient, s: Statements): Promise<boolean> {
    if (!s.sorted) return false;
    const events = Number((await client.query<{ n: string | number }>('SELECT coalesce(max(seq), 0) AS n FROM events_all')).rows[0]!.n);
    const cap = probeCap(s.sorted.reach, events);
    const matches = Number((await client.query<{ n: string | number }>(s.sorted.probe, [...s.count.values, cap])).rows[0]!.n);
    return matches < cap;
}

const aborted = (signal: AbortSignal): Promise<never> => new Promise((_, reject) => signal.addEventListener('abort', () => reject(queryCancelled()), { once: true }));

/** Cancels the statement running on `client` from a connection of its own (the pool may be full). */
async function cancelBackend(pool: pg.Pool, client: pg.PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    if (typeof pid !== 'number') return;
    const canceller = new pg.Client({ ...pool.options, statement_timeout: 2000 });
    canceller.on('error', () => undefined);
    try {
        await canceller.connect();
        await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
        // The statement then ends at its time limit.
    } finally {
        await canceller.end().catch(() => undefined);
    }
}
