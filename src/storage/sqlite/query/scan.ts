import type { Database } from 'better-sqlite3';
import { appendOnlyCount } from './count-cache.js';
import { mergeFirst, rowOrder } from './merge.js';
import { whereClause, type PageRow, type PageShape } from './page.js';
import { prepared } from './statements.js';

/**
 * Passes over every event go in slices of this many seq values, each its own short read
 * transaction. One long transaction would pin its snapshot for the whole pass (0.6 s at a million
 * events), and while a snapshot is pinned SQLite cannot checkpoint: the WAL grew to 280 MB under
 * back-to-back searches and ingest latency with it. Rows up to `top` never change, so the slices
 * together are exactly the snapshot at `top`.
 */
// 10,000 rather than 50,000: a query worker answers other requests between slices (query-worker.ts),
// so the slice is how long a newest page can wait behind a search (~8 ms instead of ~40 at 1M events);
// a lone full pass takes the same time either way (bench/README.md, "Query pool under contention").
export const SLICE = 10_000;
/** Beyond this many rows to keep per slice, merging costs more than the pinned snapshot: one piece. */
export const MAX_SLICED_REACH = 20_000;

/**
 * The work of a pass, slice by slice: it yields after each slice, so a worker can answer other
 * requests and notice a cancel in between (see query-worker.ts), and returns the result.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs steps to the end without pausing. */
export function drain<T>(steps: Steps<T>): T {
    for (;;) {
        const r = steps.next();
        if (r.done) return r.value;
    }
}

/** Calls `visit(lo, hi)` for consecutive seq ranges (lo, hi] covering (from, to], yielding after each. */
function* slices(from: number, to: number, size: number, visit: (lo: number, hi: number) => void): Steps<void> {
    for (let lo = from; lo < to; lo += size) {
        visit(lo, Math.min(to, lo + size));
        yield;
    }
}

/**
 * The first `reach` rows (in order) among events in seq range (from, top] whose body matches, and
 * with `withTotal` how many match: one sequential pass over the bodies table, slice by slice, merged.
 */
export function scanRows(db: Database, s: PageShape, reach: number, top: number, withTotal: boolean, slice = SLICE, from = 0): { rows: PageRow[]; total?: number } {
    return drain(scanRowsSteps(db, s, reach, top, withTotal, slice, from));
}

/** scanRows as steps, one per slice. */
export function* scanRowsSteps(db: Database, s: PageShape, reach: number, top: number, withTotal: boolean, slice = SLICE, from = 0): Steps<{ rows: PageRow[]; total?: number }> {
    const sql = `SELECT ${s.keyedColumns}${withTotal ? ', count(*) OVER () AS n_total' : ''} FROM bodies b CROSS JOIN events e ON e.seq = b.seq`
        + `${whereClause([...s.bodyConditions, ...s.eventConditions, 'b.seq > @lo', 'b.seq <= @hi'])} ORDER BY ${s.orderBy} LIMIT @reach`;
    const cmp = rowOrder(s.order);
    let rows: PageRow[] = [];
    let total = 0;
    yield* slices(from, top, reach > MAX_SLICED_REACH ? top : slice, (lo, hi) => {
        const piece = prepared(db, sql).all({ ...s.params, lo, hi, reach }) as (PageRow & { n_total?: number })[];
        total += piece[0]?.n_total ?? 0;
        rows = mergeFirst(rows, piece, cmp, reach);
    });
    return withTotal ? { rows, total } : { rows };
}

/** What a count filters on: the conditions of a page shape and their parameters. */
export type CountShape = Pick<PageShape, 'eventConditions' | 'bodyConditions' | 'params'>;

function countSql(s: CountShape): { whole: string; ranged: string } {
    const onlyBody = s.eventConditions.length === 0 && s.bodyConditions.length > 0;
    const conditions = [...s.bodyConditions, ...s.eventConditions];
    const from = (events: string): string => (s.bodyConditions.length === 0 ? events : onlyBody ? 'bodies b' : `${events} JOIN bodies b ON b.seq = e.seq`);
    const whole = `SELECT count(*) FROM ${from('events e')}${whereClause(conditions)}`;
    // A seq range: walk the rowids (NOT INDEXED keeps a filter index from being preferred).
    const range = (onlyBody ? ['b'] : s.bodyConditions.length ? ['e', 'b'] : ['e']).flatMap((t) => [`${t}.seq > @lo`, `${t}.seq <= @hi`]);
    const ranged = `SELECT count(*) FROM ${from('events e NOT INDEXED')}${whereClause([...conditions, ...range])}`;
    return { whole, ranged };
}

/** The key under which appendOnlyCount (or the query pool) caches a count. */
export function countKey(s: CountShape): string {
    return `${countSql(s).whole}\u0000${JSON.stringify(s.params)}`;
}

/**
 * How many events in seq range (lo, hi] match. `sliced` for counts that read every row (body
 * conditions, or no indexed filter): those go slice by slice.
 */
export function countRange(db: Database, s: CountShape, lo: number, hi: number, sliced: boolean, slice = SLICE): number {
    return drain(countRangeSteps(db, s, lo, hi, sliced, slice));
}

/** countRange as steps, one per slice. */
export function* countRangeSteps(db: Database, s: CountShape, lo: number, hi: number, sliced: boolean, slice = SLICE): Steps<number> {
    const { whole, ranged } = countSql(s);
    const count = (a: number, b: number): number => prepared(db, ranged).pluck().get({ ...s.params, lo: a, hi: b }) as number;
    if (lo > 0 && hi - lo <= slice) return count(lo, hi);
    if (!sliced) return lo === 0 ? (prepared(db, whole).pluck().get(s.params) as number) : count(lo, hi);
    let n = 0;
    yield* slices(lo, hi, slice, (a, b) => (n += count(a, b)));
    return n;
}

/**
 * How many events up to seq `top` match; kept up to date by appendOnlyCount. `sliced` as for countRange.
 */
export function countRows(db: Database, s: CountShape, top: number, sliced: boolean, slice = SLICE): number {
    return appendOnlyCount(db, countKey(s), top, (lo) => countRange(db, s, lo, top, sliced, slice));
}
