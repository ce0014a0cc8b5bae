import type { Database } from 'better-sqlite3';
import type { SortRule } from '../../query-types.js';
import type { EventRow } from '../rows.js';
import { LARGE_BODY, ROW_BYTES } from './slices.js';
import { prepared } from './statements.js';

/** A result row: the summary columns, plus k0..kN sort values where asked for. */
export type PageRow = EventRow & Record<`k${number}`, string | number | Buffer | null>;

/** One page query, in parts: SQL text only, with every value bound through `params`. */
export interface PageShape {
    order: readonly SortRule[];
    /** The result column list (over `e`); with the sort keys k0..kN in cursor mode. */
    columns: string;
    /** The summary columns and the sort keys, for passes whose pieces are merged in JS. */
    keyedColumns: string;
    /** Conditions over `events e`, the keyset included. */
    eventConditions: string[];
    /** Conditions over `bodies b`. */
    bodyConditions: string[];
    orderBy: string;
    /** The same order over a window subquery `w` (windowOrderBy), and the columns it needs. */
    windowOrderBy: string;
    windowColumns: string;
    params: Record<string, unknown>;
    /** Whether rows come out of an index (or a short sorted list) in order, so a window of the first ones is cheap. */
    orderedAccess: boolean;
    /** Events in the store: the window grows with it. */
    events: number;
}

/** What a count filters on: the conditions of a page shape and their parameters. */
export type CountShape = Pick<PageShape, 'eventConditions' | 'bodyConditions' | 'params'>;

/** ` WHERE a AND b`, or nothing. */
export const whereClause = (conditions: readonly string[]): string => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');
// Body conditions read about 1 KB per row, so where to start matters 100x (see firstRows).
const MIN_WINDOW = 5000;
const WINDOW_SHARE = 0.01;
const WINDOW_FACTOR = 20;
/**
 * Most bytes a walk reads (ROW_BYTES a row plus each large body): it is one statement, which no
 * other query on the worker and no cancel can interrupt, so it must stay short (~50 ms).
 */
const WINDOW_BYTES = 32 * 1024 * 1024;

/**
 * The `limit` rows after `offset`, or undefined when only a pass over every body can tell.
 * Without body conditions this is one indexed query. With them, two strategies each win big where
 * the other loses: for a common term, walking rows in order and reading each body stops after a few
 * hundred; for a rare one, that walk visits every body in random order (2 µs each, 2 s at a million
 * events) while one sequential pass over the bodies table (scan.ts) costs a third. So this walks, in
 * order, up to a window of 5% of the events. The walk streams and stops at a full page, so matches
 * of 0.2% and more cost only what they read. The window also stops at WINDOW_BYTES: over bodies of
 * 1 MB, 5,000 of them were 5 GB read in one statement that nothing could interrupt.
 */
export function firstRows(db: Database, s: PageShape, limit: number, offset: number): PageRow[] | undefined {
    const values = { ...s.params, limit, offset };
    if (s.bodyConditions.length === 0) {
        return prepared(db, `SELECT ${s.columns} FROM events e${whereClause(s.eventConditions)} ORDER BY ${s.orderBy} LIMIT @limit OFFSET @offset`).all(values) as PageRow[];
    }
    if (!s.orderedAccess) return undefined;
    const window = windowFor(db, s, Math.max(MIN_WINDOW, Math.ceil(WINDOW_SHARE * s.events), WINDOW_FACTOR * (offset + limit)));
    const candidates = `SELECT e.seq, ${s.windowColumns} FROM events e${whereClause(s.eventConditions)} ORDER BY ${s.orderBy} LIMIT @window`;
    // Bodies first, so an event row is read only for a match; ordering by w.* keeps it streaming.
    const inWindow = `SELECT ${s.columns} FROM (${candidates}) w CROSS JOIN bodies b ON b.seq = w.seq CROSS JOIN events e ON e.seq = w.seq`;
    const rows = prepared(db, `${inWindow}${whereClause(s.bodyConditions)} ORDER BY ${s.windowOrderBy} LIMIT @limit OFFSET @offset`).all({ ...values, window }) as PageRow[];
    if (rows.length === limit) return rows;
    // A short page is final when the window held every candidate.
    const examined = prepared(db, `SELECT count(*) FROM (${candidates})`).pluck().get({ ...s.params, window }) as number;
    return examined < window ? rows : undefined;
}

/**
 * The window cut to WINDOW_BYTES. Sizes of the candidates are read (a row lookup each) only when the
 * largest bodies of the store, through the size index, could overrun it.
 */
function windowFor(db: Database, s: PageShape, rows: number): number {
    const window = Math.min(rows, WINDOW_BYTES / ROW_BYTES);
    const largest = (prepared(db, 'SELECT sum(size) FROM (SELECT size FROM events INDEXED BY events_size WHERE size > @large ORDER BY size DESC LIMIT @window)')
        .pluck().get({ large: LARGE_BODY, window }) as number | null) ?? 0;
    if (window * ROW_BYTES + largest <= WINDOW_BYTES) return window;
    const sizes = prepared(db, `SELECT e.size FROM events e${whereClause(s.eventConditions)} ORDER BY ${s.orderBy} LIMIT @window`).pluck();
    let bytes = 0;
    let i = 0;
    // Streamed: the walk over sizes stops where the budget runs out.
    for (const size of sizes.iterate({ ...s.params, window }) as Iterable<number>) {
        bytes += ROW_BYTES + (size > LARGE_BODY ? size : 0);
        if (bytes > WINDOW_BYTES) return Math.max(1, i);
        i++;
    }
    return window;
}
