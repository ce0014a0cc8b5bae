import { createHash } from 'node:crypto';
import { BadRequestError } from '../../../errors.js';
import type { LogsQuery, SortRule } from '../../query-types.js';
import { totalOrder } from '../../sort-order.js';
import { countByValue, DISTINCT_MAX, valueByValue, type ByValue, type CountByValue } from './by-value.js';
import type { CountShape } from './count-cache.js';
import { keysetCondition, orderByClause, orderByKeys, sortKeyColumns, UnusableCursorError } from './order.js';
import { mayFallBack, mayProbe, SORT_MAX, TRY_MS, walkInIndex } from './plan.js';
import { Params } from './params.js';
import { SELECT_SUMMARY } from './rows.js';
import { buildWhere, indexConditions, whereClause, type WhereParts } from './where.js';

// The SQL of a GET /logs query, built once before anything runs (run.ts runs it): the page as the
// planner would plan it, the same page with its matches sorted in memory (plan.ts decides when that
// is tried, race.ts runs both at once), and the count of an offset total.

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
export interface Statements {
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

/** The in-memory sort's statements of a query that may fall back to it. */
export type SortedStatements = NonNullable<Statements['sorted']>;

/** An event table joined to its bodies, as `e` with the body text as `e.body_text` (pulled up into a plain join). */
const joined = (events: string, bodies: string): string => `SELECT e.*, b.text AS body_text FROM ${events} e JOIN ${bodies} b ON b.seq = e.seq`;
const EVENTS_WITH_BODY = `(${joined('events', 'bodies')}) e`;
const INBOX_WITH_BODY = `(${joined('events_inbox', 'bodies_inbox')}) e`;
/** Both tables, each joined to its own bodies (a row moves with its body). */
const ALL_WITH_BODY = `(${joined('events', 'bodies')} UNION ALL ${joined('events_inbox', 'bodies_inbox')}) e`;

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
