import type { Filter, SortField, SortRule } from '../../query-types.js';
import { SORT_COLUMNS } from './columns.js';
import { indexedColumn } from './where.js';

/** How to run a page query when a filter index and the sort index compete. */
export interface Plan {
    /** Sort the matches in memory (ORDER BY +column): the filter's index finds few rows. */
    sortInMemory: boolean;
    /** Filter columns not to use an index for: walking the sort index finds the page sooner. */
    unindexed: Set<string>;
}

/** Sort fields whose index yields rows already in the total order (column, ts, id). */
export const ORDERED_BY_INDEX: ReadonlySet<SortField> = new Set<SortField>(['timestamp', 'size', 'statusCode', 'webhookId', 'remoteIp', 'requestId', 'id']);
const DEFAULT_PLAN: Plan = { sortInMemory: false, unindexed: new Set() };

/** Facts the choice needs, measured by the caller on the query's own snapshot. */
export interface PlanInputs {
    filters: readonly Filter[];
    order: readonly SortRule[];
    /** Rows the page needs to walk past and return: offset + limit. */
    reach: number;
    /** Matches of the competing filters alone, counted up to `cap`. */
    probe(competing: number[], cap: number): number;
    /** Events in the store. */
    rows(): number;
}

/**
 * SQLite's planner has no statistics here (nothing runs ANALYZE), so with a filter on one indexed
 * column and a sort on another it guesses, and a wrong guess costs 100x: sorting 200,000 matches
 * for a page of 100, or walking the whole sort index for 200 matches. Walking the sort index reads
 * about reach·N/M rows (M: matches of the competing filters); the filter index reads M rows and
 * sorts them. The first is cheaper when M² > reach·N, so counting M up to √(reach·N) decides it,
 * through an index, in well under a millisecond for a page of 100 among a million events.
 */
export function choosePlan(p: PlanInputs): Plan {
    const lead = p.order[0]!.field;
    if (!ORDERED_BY_INDEX.has(lead)) return DEFAULT_PLAN;
    // An exact id or request id finds a row or two: SQLite always gets that one right.
    if (p.filters.some((f) => f.kind === 'exact' && (f.field === 'id' || f.field === 'requestId'))) return DEFAULT_PLAN;
    const competing: number[] = [];
    const columns = new Set<string>();
    p.filters.forEach((f, i) => {
        const column = indexedColumn(f);
        if (!column || column === SORT_COLUMNS[lead] || servedWithTimestamp(f, lead)) return;
        competing.push(i);
        columns.add(column);
    });
    if (competing.length === 0) return DEFAULT_PLAN;
    const cap = Math.ceil(Math.sqrt(p.reach * p.rows()));
    if (p.probe(competing, cap) >= cap) return { sortInMemory: false, unindexed: columns };
    return { sortInMemory: true, unindexed: new Set() };
}

/** Equality on webhook_id or status_code shares an index with ts: (webhook_id, ts, id), (status_code, ts). */
function servedWithTimestamp(f: Filter, lead: SortField): boolean {
    if (lead !== 'timestamp') return false;
    return (f.kind === 'exact' && f.field === 'webhookId') || (f.kind === 'range' && f.field === 'statusCode' && f.op === 'eq');
}
