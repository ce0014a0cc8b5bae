import type pg from 'pg';
import type { Filter, LogsQuery, SortRule } from '../../query-types.js';
import { SORT_COLUMNS } from './columns.js';
import { containsCondition } from './contains.js';
import type { CountShape } from './count-cache.js';
import { keysetCondition, orderByClause, sortKeyColumns } from './order.js';
import { Params } from './params.js';
import { SELECT_SUMMARY, type PgPageRow } from './rows.js';
import { buildWhere, whereClause } from './where.js';

// A substring filter on the sort's own field, read one matching value at a time: the statements
// (built with the rest, statements.ts) and their reads (run.ts calls them).

/** The statement reading a field's distinct values that match its substring filters (distinctMatching). */
interface Distinct {
    text: string;
    values: unknown[];
    /** Most distinct values (DISTINCT_MAX unless the options say). */
    max: number;
}

/** An offset total counted by the matching values of a substring-filtered field (countByValue). */
export interface CountByValue {
    /** The page's own (byValue.distinct) when the field is the sort's. */
    distinct: Distinct;
    /** The count for the matching values `vals`. */
    shape: (vals: string[]) => CountShape;
}

/** A page read one matching value of the sort's field at a time (valueByValue; Statements.byValue). */
export interface ByValue {
    distinct: Distinct;
    page: { text: string; values: unknown[]; valueAt: number; limitAt: number };
    rows: number;
}

/** Most distinct values of a field read one at a time for a substring filter on the sort's own field. */
export const DISTINCT_MAX = 100;

/**
 * The statements of a page read one value of the sort's field at a time, when a substring filter is
 * on that field (`userAgent=hookshot` sorted by userAgent): PostgreSQL's plan walks the sort index
 * and tests each row, and the matches may lie at its far end (5/6 of a million rows, 0.6 s). The
 * field's distinct values come from a skip scan of its index (one probe per value, at most
 * DISTINCT_MAX + 1) and the inbox, those that match in the sort's order; each is then a plain
 * equality the sort index serves in order.
 */
export function valueByValue(q: LogsQuery, order: readonly SortRule[], from: string, cursor: LogsQuery['cursor'], cursorMode: boolean, max: number): ByValue | undefined {
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
export function countByValue(q: LogsQuery, order: readonly SortRule[], from: string, byValue: ByValue | undefined, max: number): CountByValue | undefined {
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

/** Matching values already read in a query, by their statement. */
export type SeenValues = Map<Distinct, Promise<string[] | undefined>>;

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
export async function countShape(client: pg.PoolClient, s: { count: CountShape; countByValue?: CountByValue | undefined }, seen: SeenValues): Promise<CountShape> {
    if (!s.countByValue) return s.count;
    const vals = await matchingValues(client, s.countByValue.distinct, seen);
    return vals ? s.countByValue.shape(vals) : s.count;
}

/** The page read one matching value at a time (valueByValue), or undefined when the field has too many values. */
export async function valueRows(client: pg.PoolClient, byValue: ByValue, seen: SeenValues): Promise<PgPageRow[] | undefined> {
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
