import type { Database } from 'better-sqlite3';
import type { CursorPosition, SortRule } from '../../query-types.js';
import { appendOnlyCount } from './count-cache.js';
import { FirstRows } from './keep.js';
import { keysetCondition } from './order.js';
import { whereClause, type CountShape, type PageRow, type PageShape } from './page.js';
import { byteSlices, largeBodies, NO_LARGE_BODIES, SLICE, SLICE_BYTES, type LargeBodies, type SliceLimits } from './slices.js';
import { prepared } from './statements.js';

// Passes over every event go in slices, each its own short read transaction. One long transaction
// would pin its snapshot for the whole pass (0.6 s at a million events), and while a snapshot is
// pinned SQLite cannot checkpoint: the WAL grew to 280 MB under back-to-back searches and ingest
// latency with it. Rows up to `top` never change, so the slices together are exactly the snapshot at
// `top`. A slice is bounded by rows and by bytes (slices.ts): a query worker answers other requests
// and notices a cancel between slices (query-worker.ts), so the slice is how long a newest page can
// wait behind a search, and how long a search runs on after its client left. By rows alone, a slice
// over 1 MB bodies read 10 GB.
export { SLICE } from './slices.js';
/**
 * Passes whose rows to keep exceed this are not split over workers: their pieces would carry that
 * many rows across threads. They still run slice by slice, and stop on a cancel like any other.
 */
export const MAX_SLICED_REACH = 20_000;

/** How a pass is cut: most rows and most bytes per slice (tests make both small). */
export interface SliceTuning {
    slice?: number;
    sliceBytes?: number;
}

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

const limitsOf = (t: SliceTuning): SliceLimits => ({ rows: t.slice ?? SLICE, bytes: t.sliceBytes ?? SLICE_BYTES });

/**
 * The first `reach` rows (in order) among events in seq range (from, top] whose body matches, and
 * with `withTotal` how many match: one sequential pass over the bodies table, slice by slice, merged.
 */
export function scanRows(db: Database, s: PageShape, reach: number, top: number, withTotal: boolean, tuning: SliceTuning = {}, from = 0): { rows: PageRow[]; total?: number } {
    return drain(scanRowsSteps(db, s, reach, top, withTotal, tuning, from));
}

/** scanRows as steps, one per slice. */
export function* scanRowsSteps(db: Database, s: PageShape, reach: number, top: number, withTotal: boolean, tuning: SliceTuning = {}, from = 0): Steps<{ rows: PageRow[]; total?: number }> {
    const base = `SELECT ${s.keyedColumns}${withTotal ? ', count(*) OVER () AS n_total, row_number() OVER () AS n_row' : ''} FROM bodies b CROSS JOIN events e ON e.seq = b.seq`
        + whereClause([...s.bodyConditions, ...s.eventConditions, 'b.seq > @lo', 'b.seq <= @hi']);
    const plain = `${base} ORDER BY ${s.orderBy} LIMIT @reach`;
    const kept = new FirstRows(s.order, reach);
    let total = 0;
    for (const [lo, hi] of byteSlices(largeBodies(db, from, top), from, top, limitsOf(tuning))) {
        // Once `reach` rows are kept, a slice returns only rows that sort before the last of them:
        // with many matches, far fewer rows reach JS.
        const bar = kept.bar();
        const params: Record<string, unknown> = { ...s.params, lo, hi, reach };
        const sql = bar ? barred(base, s.order, bar, params, withTotal) : plain;
        const piece = prepared(db, sql).all(params) as ScannedRow[];
        total += piece[0]?.n_total ?? 0;
        kept.add(bar && withTotal ? piece.filter((r) => r.n_beats) : piece);
        yield;
    }
    const rows = kept.rows();
    return withTotal ? { rows, total } : { rows };
}

type ScannedRow = PageRow & { n_total?: number; n_beats?: number };

/**
 * `base` limited to rows that sort before `bar` in `order` (over its k0..kN columns), in order. With
 * a total, the first match of the slice comes too (n_beats 0), sorted after the others, to carry
 * the count of every match of the slice.
 */
function barred(base: string, order: readonly SortRule[], bar: CursorPosition, params: Record<string, unknown>, withTotal: boolean): string {
    const bind = (v: unknown): string => {
        const name = `bar${Object.keys(params).length}`;
        params[name] = v;
        return `@${name}`;
    };
    // "Before bar in order" is "after bar in the reverse order".
    const reverse = order.map((r) => ({ ...r, dir: r.dir === 'asc' ? 'desc' as const : 'asc' as const }));
    const before = keysetCondition(reverse, bar, bind, (_, i) => `k${i}`);
    const orderBy = order.map((r, i) => `k${i} ${r.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
    if (!withTotal) return `SELECT * FROM (${base}) WHERE ${before} ORDER BY ${orderBy} LIMIT @reach`;
    // The subquery keeps count(*) OVER () counting every match of the slice.
    return `SELECT * FROM (SELECT *, ${before} AS n_beats FROM (${base})) WHERE n_beats OR n_row = 1 ORDER BY ${orderBy} LIMIT @reach + 1`;
}

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
 * conditions, or no indexed filter): those go slice by slice, cut by bytes when they read bodies.
 */
export function countRange(db: Database, s: CountShape, lo: number, hi: number, sliced: boolean, tuning: SliceTuning = {}): number {
    return drain(countRangeSteps(db, s, lo, hi, sliced, tuning));
}

/** countRange as steps, one per slice. */
export function* countRangeSteps(db: Database, s: CountShape, lo: number, hi: number, sliced: boolean, tuning: SliceTuning = {}): Steps<number> {
    const { whole, ranged } = countSql(s);
    const count = (a: number, b: number): number => prepared(db, ranged).pluck().get({ ...s.params, lo: a, hi: b }) as number;
    if (!sliced) return lo === 0 ? (prepared(db, whole).pluck().get(s.params) as number) : count(lo, hi);
    const large: LargeBodies = s.bodyConditions.length ? largeBodies(db, lo, hi) : NO_LARGE_BODIES;
    let n = 0;
    for (const [a, b] of byteSlices(large, lo, hi, limitsOf(tuning))) {
        n += count(a, b);
        yield;
    }
    return n;
}

/**
 * How many events up to seq `top` match; kept up to date by appendOnlyCount. `sliced` as for countRange.
 */
export function countRows(db: Database, s: CountShape, top: number, sliced: boolean, tuning: SliceTuning = {}): number {
    return appendOnlyCount(db, countKey(s), top, (lo) => countRange(db, s, lo, top, sliced, tuning));
}
