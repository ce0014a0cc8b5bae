import { createHash } from 'node:crypto';
import pg from 'pg';
import { BadRequestError } from '../../../errors.js';
import type { LogsPage, LogsQuery } from '../../query-types.js';
import { totalOrder } from '../../sort-order.js';
import type { Filter, SortRule } from '../../query-types.js';
import { queryCancelled, queryTimedOut } from '../../query-errors.js';
import { guarded, storeError } from '../pool.js';
import { cachedCount, type CountShape } from './count-cache.js';
import { SORT_COLUMNS } from './columns.js';
import { containsCondition } from './contains.js';
import { keysetCondition, orderByClause, orderByKeys, sortKeyColumns, UnusableCursorError } from './order.js';
import { mayFallBack, mayProbe, probeCap, SORT_MAX, TRY_MS, walkInIndex } from './plan.js';
import { Params } from './params.js';
import { pgPositionOf, pgRowToSummary, SELECT_SUMMARY, type PgPageRow } from './rows.js';
import { buildWhere, indexConditions, type WhereParts } from './where.js';

/** Time limit of one query, ms: the SQLite query pool's (POOL_LIMITS.timeoutMs). */
export const PG_QUERY_TIMEOUT_MS = 15_000;

/** How a query is run, beyond its defaults. */
export interface PgQueryOptions {
    /** How long the planner's plan may run before the matches are sorted in memory instead (ms; default TRY_MS, plan.ts). */
    tryMs?: number;
    /** Most matches sorted in memory then (default SORT_MAX, plan.ts). */
    sortMax?: number;
    /** Most distinct values of the sort's field read one at a time for a substring filter on it (default DISTINCT_MAX). */
    distinctMax?: number;
    /** Whether the plan and the in-memory sort run at once on two connections instead of one after the other (default true). */
    race?: boolean;
}

/** The SQL of one GET /logs query: the page statement and, for offset mode, the count statement. */
interface Statements {
    /** `name`: an unfiltered page, prepared once per connection and planned once (generic). */
    page: { text: string; values: unknown[]; name?: string };
    /**
     * The same page with the matches fetched first and sorted in memory (plan.ts); how many there are
     * is counted by `probe` (b-tree filters) or else estimated by `estimate`.
     */
    sorted?: { text: string; capped: string; reach: number; values: unknown[]; max: number; tryMs: number; race: boolean } & ({ probe: string } | { estimate: string });
    /**
     * A substring filter on the sort's own field: the field's distinct values (`distinct`, at most
     * DISTINCT_MAX in the table, else unused) that match it, in the sort's order; then the page is
     * read one value at a time (`page`, its value at `valueAt` and its row limit at `limitAt` in
     * the values), each through the sort index, until it is full.
     */
    byValue?: ByValue | undefined;
    count: CountShape;
    /** An offset total counted by the matching values of a substring-filtered field (countByValue). */
    countByValue?: CountByValue | undefined;
}

/** The statement reading a field's distinct values that match its substring filters (distinctMatching). */
interface Distinct {
    text: string;
    values: unknown[];
    /** Most distinct values (DISTINCT_MAX unless the options say). */
    max: number;
}

interface CountByValue {
    /** The page's own (byValue.distinct) when the field is the sort's. */
    distinct: Distinct;
    /** The count for the matching values `vals`. */
    shape: (vals: string[]) => CountShape;
}

interface ByValue {
    distinct: Distinct;
    page: { text: string; values: unknown[]; valueAt: number; limitAt: number };
    rows: number;
}

/** Most distinct values of a field read one at a time for a substring filter on the sort's own field. */
export const DISTINCT_MAX = 100;

/** An event table joined to its bodies, as `e` with the body text as `e.body_text` (pulled up into a plain join). */
const joined = (events: string, bodies: string): string => `SELECT e.*, b.text AS body_text FROM ${events} e JOIN ${bodies} b ON b.seq = e.seq`;
const EVENTS_WITH_BODY = `(${joined('events', 'bodies')}) e`;
const INBOX_WITH_BODY = `(${joined('events_inbox', 'bodies_inbox')}) e`;
/** Both tables, each joined to its own bodies (a row moves with its body). */
const ALL_WITH_BODY = `(${joined('events', 'bodies')} UNION ALL ${joined('events_inbox', 'bodies_inbox')}) e`;

const whereClause = (conditions: readonly string[]): string => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/**
 * The in-memory sort of a page with keyed filters, their JSON walks deferred: the candidates (every
 * other condition, the keyed filters' trigram prefilters included) are sorted first, and the walks
 * then run in that order only until the page is full, instead of on every candidate (a walk costs
 * ~25 µs a document: 12,632 candidates took 0.3 s).
 * Past `max` candidates every row passes, so the caller sees whd_matches and does not use it.
 */
function deferredTests(where: WhereParts, order: readonly SortRule[], a: { from: string; keys: string; after: string[]; limit: string; offset: string; max: number }): string {
    const columns = [...new Set(where.testColumns)].map((c) => `, e.${c}`).join('');
    const candidates = `SELECT ${a.keys}, e.seq AS whd_seq${columns} FROM ${a.from}${whereClause([...where.narrow, ...a.after])} LIMIT ${a.max + 1}`;
    const inOrder = `SELECT v.*, count(*) OVER () AS whd_matches FROM (${candidates}) v ORDER BY ${orderByKeys(order, 'v')}`;
    return withSummaries(`SELECT e.* FROM (${inOrder}) e WHERE (${where.tests.join(' AND ')}) OR e.whd_matches > ${a.max} ORDER BY ${orderByKeys(order, 'e')} LIMIT ${a.limit} OFFSET ${a.offset}`, order);
}

/**
 * The page's rows from `sortedPage` (rows of sort keys k0..kN, whd_seq and whd_matches): the matches
 * are sorted as their keys alone, and only the page's rows are read whole (a sort of 12,632 whole rows
 * spilled to disk; of their keys, it did not).
 */
const withSummaries = (sortedPage: string, order: readonly SortRule[]): string =>
    `SELECT ${SELECT_SUMMARY}, ${order.map((_, i) => `w.k${i}`).join(', ')}, w.whd_matches FROM (${sortedPage}) w JOIN events_all e ON e.seq = w.whd_seq ORDER BY ${orderByKeys(order)}`;

/** A prepared statement's name, one per text (the driver refuses one name for two texts). */
const preparedName = (text: string): string => `whd_page_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;

/** Builds the statements of `q`; throws BadRequestError for a cursor PostgreSQL cannot compare. */
export function buildStatements(q: LogsQuery, options: PgQueryOptions = {}): Statements {
    const { tryMs = TRY_MS, sortMax = SORT_MAX, distinctMax = DISTINCT_MAX, race = true } = options;
    const order = totalOrder(q.sort);
    const p = new Params();
    const where = buildWhere(q.filters, p);
    const whereValues = p.values.length;
    const onBody = where.bodies.length > 0;
    // A body filter reads each table joined to its own bodies (inbox to inbox; a row moves with its
    // body): joined as the two UNION ALL views, PostgreSQL walked every event against the matches.
    const from = onBody ? ALL_WITH_BODY : 'events_all e';
    const conditions = [...where.events, ...where.bodies];
    const count: CountShape = { from, conditions: [...conditions], values: p.values.slice(0, whereValues) };
    const cursorMode = q.cursor !== undefined;
    let after: string[] = [];
    if (q.cursor) {
        try {
            after = [keysetCondition(order, q.cursor, p)];
            conditions.push(...after);
        } catch (error) {
            if (error instanceof UnusableCursorError) throw new BadRequestError("Parameter 'cursor' is not a valid cursor: pass nextCursor from a previous page unchanged, or an empty cursor= to start", { parameter: 'cursor' });
            throw error;
        }
    }
    const columns = cursorMode ? `${SELECT_SUMMARY}, ${sortKeyColumns(order)}` : SELECT_SUMMARY;
    const limit = p.bind(cursorMode ? q.limit + 1 : q.limit, 'bigint');
    const offset = p.bind(cursorMode ? 0 : q.offset, 'bigint');
    // The values every statement of the page uses; the body branches' reach comes after them.
    const values = [...p.values];
    let page: Statements['page'] = { text: `SELECT ${columns} FROM ${from}${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${limit} OFFSET ${offset}`, values };
    if (onBody) {
        // The page from each table on its own, merged: the indexed tables get the plans a single
        // table gets (the sort index walked, or the body's trigram index first), the inbox is small.
        const reach = p.bind((cursorMode ? q.limit + 1 : q.offset + q.limit), 'bigint');
        const branch = (source: string): string =>
            `(SELECT ${SELECT_SUMMARY}, ${sortKeyColumns(order)} FROM ${source}${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${reach})`;
        page = { text: `SELECT w.* FROM (${branch(EVENTS_WITH_BODY)} UNION ALL ${branch(INBOX_WITH_BODY)}) w ORDER BY ${orderByKeys(order)} LIMIT ${limit} OFFSET ${offset}`, values: p.values };
    }
    const walk = walkInIndex(q.filters, order);
    if (walk === 'exact') {
        // The page's positions from the sort's index alone (an index-only scan where the planner walks
        // it), then its rows read whole by id: the table is read for the page's rows, not for every
        // row the walk tests.
        const positions = `SELECT e.id AS whd_id FROM events_all e${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${limit} OFFSET ${offset}`;
        page = { text: `SELECT ${columns} FROM (${positions}) w JOIN events_all e ON e.id = w.whd_id ORDER BY ${orderByClause(order)}`, values };
    } else if (walk === 'signature') {
        // The candidates' positions from the sort's index alone, in order (the signatures let through a
        // superset), each row then read by id and tested, lazily: until the page is full.
        // The index conditions' own values (a URL pattern) follow the shared ones, in this statement only.
        const own = new Params(values);
        const candidates = `SELECT e.id AS whd_id, ${sortKeyColumns(order)} FROM events_all e${whereClause([...indexConditions(where, own), ...after])} ORDER BY ${orderByClause(order)}`;
        page = { text: `SELECT ${columns} FROM (${candidates}) w JOIN events_all e ON e.id = w.whd_id${whereClause([...where.events, ...where.bodies])} ORDER BY ${orderByKeys(order)} LIMIT ${limit} OFFSET ${offset}`, values: own.values };
    }
    // Without filters the plan is the sort's index walked from the cursor or the offset, whatever the
    // values: prepared and planned once per connection, each page skips parsing and planning
    // (1.1 ms of 2.8 for a deep cursor page, bench/README.md).
    if (q.filters.length === 0) page = { ...page, name: preparedName(page.text) };
    const byValue = cursorMode || q.offset === 0 ? valueByValue(q, order, from, after.length > 0 ? q.cursor : undefined, cursorMode, distinctMax) : undefined;
    const counted = cursorMode ? undefined : countByValue(q, order, from, byValue, distinctMax);
    if (!mayFallBack(q.filters, order)) return { page, count, byValue, countByValue: counted };
    // OFFSET 0 keeps PostgreSQL from pulling the ORDER BY into the subquery, so the matches come
    // through the filters' indexes and are sorted after.
    const keys = `${SELECT_SUMMARY}, ${sortKeyColumns(order)}`;
    const sorted = {
        text: `SELECT w.* FROM (SELECT ${keys} FROM ${from}${whereClause(conditions)} OFFSET 0) w ORDER BY ${orderByKeys(order)} LIMIT ${limit} OFFSET ${offset}`,
        capped: where.tests.length === 0
            // At most `max` matches, and how many there were (up to one more): more means it must not be used.
            ? withSummaries(`SELECT v.*, count(*) OVER () AS whd_matches FROM (SELECT ${sortKeyColumns(order)}, e.seq AS whd_seq FROM ${from}${whereClause(conditions)} LIMIT ${sortMax + 1}) v ORDER BY ${orderByKeys(order, 'v')} LIMIT ${limit} OFFSET ${offset}`, order)
            : deferredTests(where, order, { from, keys: sortKeyColumns(order), after, limit, offset, max: sortMax }),
        ...(mayProbe(q.filters, order)
            // The filters' values, then the cap: $${count.values.length + 1}.
            ? { probe: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from}${whereClause(count.conditions)} LIMIT $${count.values.length + 1}::bigint) s` }
            // The planner's estimate of the candidates: the keyed filters' JSON walks, whose selectivity
            // it can only guess, are folded away (OR true), but their parameters keep their types.
            : { estimate: `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${from}${whereClause([...where.narrow, ...(where.tests.length ? [`((${where.tests.join(' AND ')}) OR true)`] : [])])}` }),
        reach: (cursorMode ? 0 : q.offset) + q.limit,
        values,
        max: sortMax,
        tryMs,
        race,
    };
    return { page, sorted, count, byValue, countByValue: counted };
}

/**
 * The statements of a page read one value of the sort's field at a time, when a substring filter is
 * on that field (`userAgent=hookshot` sorted by userAgent): PostgreSQL's plan walks the sort index
 * and tests each row, and the matches may lie at its far end (5/6 of a million rows, 0.6 s). The
 * field's distinct values come from a skip scan of its index (one probe per value, at most
 * DISTINCT_MAX + 1) and the inbox, those that match in the sort's order; each is then a plain
 * equality the sort index serves in order.
 */
function valueByValue(q: LogsQuery, order: readonly SortRule[], from: string, cursor: LogsQuery['cursor'], cursorMode: boolean, max: number): ByValue | undefined {
    const lead = order[0]!;
    const onLead = (f: LogsQuery['filters'][number]): boolean => f.kind === 'partial' && f.field === lead.field;
    const matching = q.filters.filter(onLead);
    if (matching.length === 0) return undefined;
    const column = SORT_COLUMNS[lead.field];
    const p = new Params();
    const where = buildWhere(q.filters.filter((f) => !onLead(f)), p);
    const conditions = [...where.events, ...where.bodies];
    const valueAt = p.values.length;
    conditions.push(`${column} = ${p.bind('', 'text')}`);
    if (cursor) conditions.push(keysetCondition(order, cursor, p));
    const limitAt = p.values.length;
    const limit = p.bind(0, 'bigint');
    const columns = cursorMode ? `${SELECT_SUMMARY}, ${sortKeyColumns(order)}` : SELECT_SUMMARY;
    const text = `SELECT ${columns} FROM ${from}${whereClause(conditions)} ORDER BY ${orderByClause(order)} LIMIT ${limit}`;
    return { distinct: distinctMatching(column, matching, lead.dir, max), page: { text, values: p.values, valueAt, limitAt }, rows: cursorMode ? q.limit + 1 : q.limit };
}

/**
 * The statement reading `column`'s distinct values that pass the substring filters `matching`, in
 * `dir` order: a skip scan of the column's sort index (one probe per value, at most `max` + 1) and
 * the inbox's values. Answers `n`, the values the skip scan read (more than `max`: too many to use),
 * and `vals`, those that match.
 */
function distinctMatching(column: string, matching: readonly Filter[], dir: SortRule['dir'], max: number): Distinct {
    // The distinct values as d(v), under the "C" collation as the column is (text fields only: partial filters are on text).
    const value = '(d.v COLLATE "C")';
    const p = new Params();
    const tests = matching.map((f) => containsCondition(value, (f as { value: string }).value, p));
    // A recursive CTE is read lazily: the outer LIMIT ends the skip scan after max + 1 values.
    const text = `WITH RECURSIVE s(v) AS ((SELECT ${column} FROM events e ORDER BY ${column} LIMIT 1) UNION ALL `
        + `SELECT (SELECT ${column} FROM events e WHERE ${column} > s.v ORDER BY ${column} LIMIT 1) FROM s WHERE s.v IS NOT NULL), `
        + `t AS (SELECT v FROM s WHERE v IS NOT NULL LIMIT ${max + 1}) `
        + `SELECT (SELECT count(*) FROM t) AS n, ARRAY(SELECT ${value} FROM (SELECT v FROM t UNION SELECT ${column} FROM events_inbox e) d(v) `
        + `WHERE ${tests.join(' AND ')} ORDER BY ${value} ${dir === 'asc' ? 'ASC' : 'DESC'}) AS vals`;
    return { text, values: p.values, max };
}

/**
 * An offset total with a substring filter on a field of few distinct values (userAgent=hookshot):
 * the values that match (distinctMatching), then the events holding one of them counted through the
 * field's sort index alone. A count through the substring itself tests every row (1.1 s for 167,000 of
 * a million; through the index by value, 76 ms). The other filters stay as they are. When the page
 * reads the sort's own field value by value (`byValue`), the count takes that field and its values.
 */
function countByValue(q: LogsQuery, order: readonly SortRule[], from: string, byValue: ByValue | undefined, max: number): CountByValue | undefined {
    const first = q.filters.find((f) => f.kind === 'partial');
    if (first?.kind !== 'partial') return undefined;
    const field = byValue ? order[0]!.field : first.field;
    const matching = q.filters.filter((f) => f.kind === 'partial' && f.field === field);
    const column = SORT_COLUMNS[field];
    return {
        distinct: byValue?.distinct ?? distinctMatching(column, matching, 'asc', max),
        shape: (vals) => {
            const p = new Params();
            const where = buildWhere(q.filters.filter((f) => !matching.includes(f)), p);
            return { from, conditions: [...where.events, ...where.bodies, `${column} = ANY (${p.bind(vals, 'text[]')})`], values: p.values };
        },
    };
}

/**
 * Runs a GET /logs query on PostgreSQL with the SQLite backend's semantics: the same filters, the
 * same total order (sort-order.ts, NULL first ascending), the same keyset cursors and offset totals.
 * Page and total read one snapshot (a repeatable-read transaction). Rejects with BadRequestError for
 * an unusable cursor, 504 (the SQLite pool's error) past `timeoutMs` (0: no limit), 499 when `signal` aborts (the
 * statement is cancelled on the server), StoreUnavailableError while the database is away.
 */
export async function runPgQuery(pool: pg.Pool, q: LogsQuery, signal?: AbortSignal, timeoutMs = PG_QUERY_TIMEOUT_MS, options: PgQueryOptions = {}): Promise<LogsPage> {
    if (signal?.aborted) throw queryCancelled();
    const statements = buildStatements(q, options);
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
 * Whether a racer may take a connection: only while more than half the pool is free (idle or yet to
 * be opened), so that half stays free after it. Queries hold at most half the pool (the QueryGate in
 * pg/index.ts) so that reads, claims and the feed always find a connection; a racer is a query's too.
 * Else the try runs alone.
 */
function hasRoom(pool: pg.Pool): boolean {
    const max = pool.options.max ?? 10;
    return pool.idleCount + max - pool.totalCount - 1 >= Math.ceil(max / 2);
}

type Outcome = { rows: PgPageRow[]; error?: undefined } | { rows?: undefined; error: unknown };
const outcome = (work: Promise<PgPageRow[]>): Promise<Outcome> => work.then((rows) => ({ rows }), (error: unknown) => ({ error }));
const pidOf = (client: pg.PoolClient): number => (client as unknown as { processID: number }).processID;

/**
 * The planner's plan (on `client`, inside a savepoint) and the matches sorted in memory (on a second
 * pooled connection, a read-only transaction in `client`'s exported snapshot, so both see the same
 * events) at once. The plan starts at once; the sort as soon as its connection is there (opening
 * one takes ~10 ms). The first usable answer wins and the other statement is cancelled from the
 * connection that is free (PostgreSQL ignores a cancel that reaches a backend between statements).
 * An in-memory sort that finds more than `max` matches is no answer: the plan's is awaited. Before,
 * the plan ran alone for TRY_MS and was then given up for the in-memory sort: both times in a row.
 */
async function race(pool: pg.Pool, client: pg.PoolClient, planned: () => Promise<PgPageRow[]>, sorted: NonNullable<Statements['sorted']>, left: () => number): Promise<PgPageRow[]> {
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
    if (running) state.cancelling = done.error === undefined ? client.query('SELECT pg_cancel_backend($1)', [pidOf(running)]) : cancelBackend(pool, running);
    await state.cancelling?.catch(() => undefined);
    if (done.error !== undefined) throw done.error;
    await client.query('RELEASE SAVEPOINT whd_try');
    return done.rows!;
}

/** Matching values already read in a query, by their statement. */
type SeenValues = Map<Distinct, Promise<string[] | undefined>>;

/** The matching values `d` reads (once per query: `seen`), or undefined when the field has too many values. */
function matchingValues(client: pg.PoolClient, d: Distinct, seen: SeenValues): Promise<string[] | undefined> {
    let read = seen.get(d);
    if (!read) {
        read = client.query<{ n: string | number; vals: string[] }>({ text: d.text, values: d.values }).then(({ rows: [found] }) =>
            (!found || Number(found.n) > d.max || found.vals.length > d.max ? undefined : found.vals));
        seen.set(d, read);
    }
    return read;
}

/** What an offset total counts: by the matching values of a field (countByValue) when it has few enough, else the filters as they are. */
async function countShape(client: pg.PoolClient, s: Statements, seen: SeenValues): Promise<CountShape> {
    if (!s.countByValue) return s.count;
    const vals = await matchingValues(client, s.countByValue.distinct, seen);
    return vals ? s.countByValue.shape(vals) : s.count;
}

/** The page read one matching value at a time (valueByValue), or undefined when the field has too many values. */
async function valueRows(client: pg.PoolClient, byValue: ByValue, seen: SeenValues): Promise<PgPageRow[] | undefined> {
    const vals = await matchingValues(client, byValue.distinct, seen);
    if (!vals) return undefined;
    const rows: PgPageRow[] = [];
    for (const value of vals) {
        const values = [...byValue.page.values];
        values[byValue.page.valueAt] = value;
        values[byValue.page.limitAt] = byValue.rows - rows.length;
        rows.push(...(await client.query<PgPageRow>({ text: byValue.page.text, values })).rows);
        if (rows.length >= byValue.rows) break;
    }
    return rows;
}

/**
 * Whether the planner estimates plainly more matches than `max`, so that sorting them in memory
 * would only be started to be given up (a count through a trigram index would do the search itself).
 */
async function tooMany(client: pg.PoolClient, s: Statements, sorted: NonNullable<Statements['sorted']> & { estimate: string }): Promise<boolean> {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(sorted.estimate, s.count.values);
    return rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'] > 2 * sorted.max;
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
