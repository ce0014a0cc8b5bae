import type { SortRule } from './query-types.js';

/**
 * The total order a query really uses: the requested rules, then `timestamp` and finally `id` as
 * tie-breakers (each only if not requested already), in the direction of the last rule; rules after
 * an explicit `id` can never apply and are dropped. Timestamp before id keeps ties in capture order
 * and lets the (column, ts, id) indexes serve the whole ORDER BY. Cursors carry one value per rule
 * of this order except the final `id`.
 */
export function totalOrder(sort: readonly SortRule[]): SortRule[] {
    const at = sort.findIndex((r) => r.field === 'id');
    if (at >= 0) return sort.slice(0, at + 1);
    const dir = sort[sort.length - 1]?.dir ?? 'desc';
    const order = [...sort];
    if (!order.some((r) => r.field === 'timestamp')) order.push({ field: 'timestamp', dir });
    order.push({ field: 'id', dir });
    return order;
}
