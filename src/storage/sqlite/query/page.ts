import type { Database } from 'better-sqlite3';
import type { EventRow } from '../rows.js';
import { appendOnlyCount } from './count-cache.js';
import { prepared } from './statements.js';

/** A result row: the summary columns, plus k0..kN sort values in cursor mode. */
export type PageRow = EventRow & Record<`k${number}`, string | number | Buffer | null>;

/** One page query, in parts: SQL text only, with every value bound through `params`. */
export interface PageShape {
    /** The result column list (over `e`). */
    columns: string;
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

const whereClause = (conditions: string[]): string => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');
// Body conditions read about 1 KB per row, so where to start matters 100x (see pageRows).
const MIN_WINDOW = 5000;
const WINDOW_SHARE = 0.05;
const WINDOW_FACTOR = 20;

/**
 * The `limit` rows after `offset`. Without body conditions this is one indexed query. With them,
 * two strategies each win big where the other loses: for a common term, walking rows in order and
 * reading each body stops after a few hundred; for a rare one, that walk visits every body in random
 * order (2 µs each, 2 s at a million events) while one sequential pass over the bodies table costs a
 * third. So it first walks, in order, up to a window of 5% of the events (the walk streams and stops
 * at a full page, so matches ≥ 0.2% cost only what they read) and falls back to the sequential pass
 * only when the window ran out.
 */
export function pageRows(db: Database, s: PageShape, limit: number, offset: number, withTotal = false): { rows: PageRow[]; total?: number } {
    const tail = `ORDER BY ${s.orderBy} LIMIT @limit OFFSET @offset`;
    const values = { ...s.params, limit, offset };
    if (s.bodyConditions.length === 0) {
        return { rows: prepared(db, `SELECT ${s.columns} FROM events e${whereClause(s.eventConditions)} ${tail}`).all(values) as PageRow[] };
    }
    if (s.orderedAccess) {
        const window = Math.max(MIN_WINDOW, Math.ceil(WINDOW_SHARE * s.events), WINDOW_FACTOR * (offset + limit));
        const candidates = `SELECT e.seq, ${s.windowColumns} FROM events e${whereClause(s.eventConditions)} ORDER BY ${s.orderBy} LIMIT @window`;
        // Bodies first, so an event row is read only for a match; ordering by w.* keeps it streaming.
        const inWindow = `SELECT ${s.columns} FROM (${candidates}) w CROSS JOIN bodies b ON b.seq = w.seq CROSS JOIN events e ON e.seq = w.seq`;
        const rows = prepared(db, `${inWindow}${whereClause(s.bodyConditions)} ORDER BY ${s.windowOrderBy} LIMIT @limit OFFSET @offset`).all({ ...values, window }) as PageRow[];
        if (rows.length === limit) return { rows };
        // A short page is final when the window held every candidate.
        const examined = prepared(db, `SELECT count(*) FROM (${candidates})`).pluck().get({ ...s.params, window }) as number;
        if (examined < window) return { rows };
    }
    // The sequential pass sees every match anyway: it counts them too (the matches are few here).
    const sequential = `SELECT ${s.columns}${withTotal ? ', count(*) OVER () AS n_total' : ''} FROM bodies b CROSS JOIN events e ON e.seq = b.seq`;
    const rows = prepared(db, `${sequential}${whereClause([...s.bodyConditions, ...s.eventConditions])} ${tail}`).all(values) as (PageRow & { n_total?: number })[];
    return rows[0]?.n_total === undefined ? { rows } : { rows, total: rows[0].n_total };
}

/** How many events match (from the bodies table alone when only body conditions apply), kept up to date by appendOnlyCount. */
export function countRows(db: Database, s: Pick<PageShape, 'eventConditions' | 'bodyConditions' | 'params'>): number {
    const onlyBody = s.eventConditions.length === 0 && s.bodyConditions.length > 0;
    const conditions = [...s.bodyConditions, ...s.eventConditions];
    const from = (events: string): string => (s.bodyConditions.length === 0 ? events : onlyBody ? 'bodies b' : `${events} JOIN bodies b ON b.seq = e.seq`);
    const full = `SELECT count(*) FROM ${from('events e')}${whereClause(conditions)}`;
    // New rows only: walk the rowid range (NOT INDEXED keeps a filter index from being preferred).
    const newer = onlyBody ? ['b.seq > @above'] : s.bodyConditions.length ? ['e.seq > @above', 'b.seq > @above'] : ['e.seq > @above'];
    const above = `SELECT count(*) FROM ${from('events e NOT INDEXED')}${whereClause([...conditions, ...newer])}`;
    return appendOnlyCount(db, `${full}\u0000${JSON.stringify(s.params)}`, (seq) => prepared(db, seq === 0 ? full : above).pluck().get({ ...s.params, above: seq }) as number);
}
