import type { SortRule } from './query-types.js';

/**
 * The total order a query really uses: the requested rules up to `id`, with `id` appended as the
 * final tie-breaker (in the direction of the last rule) when it is not already there. Cursors carry
 * one value per rule of this order except the final `id`.
 */
export function totalOrder(sort: readonly SortRule[]): SortRule[] {
    const at = sort.findIndex((r) => r.field === 'id');
    if (at >= 0) return sort.slice(0, at + 1);
    const last = sort[sort.length - 1];
    return [...sort, { field: 'id', dir: last ? last.dir : 'desc' }];
}
