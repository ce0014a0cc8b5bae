import type { CursorPosition, SortRule } from '../../query-types.js';
import { SORT_EXPRESSIONS } from './columns.js';

type Bind = (value: unknown) => string;

/** `ORDER BY` terms for a total order (see totalOrder). */
export function orderByClause(order: readonly SortRule[]): string {
    return order.map((r) => `${SORT_EXPRESSIONS[r.field]} ${r.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
}

/** Result columns k0..kN holding each row's sort values, for the next cursor (the last one is id). */
export function sortKeyColumns(order: readonly SortRule[]): string {
    return order.map((r, i) => (r.field === 'remoteIp' ? `hex(${SORT_EXPRESSIONS[r.field]}) AS k${i}` : `${SORT_EXPRESSIONS[r.field]} AS k${i}`)).join(', ');
}

/**
 * "Comes after `position` in `order`": the keyset predicate. It uses the very expressions of
 * ORDER BY, so NULL sentinels and directions agree. One direction throughout becomes a row-value
 * comparison, which SQLite serves from an index; mixed directions expand rule by rule.
 */
export function keysetCondition(order: readonly SortRule[], position: CursorPosition, bind: Bind): string {
    const values = [...position.values, position.id].map((v, i) => (order[i]?.field === 'remoteIp' ? Buffer.from(String(v), 'hex') : v));
    const exprs = order.map((r) => SORT_EXPRESSIONS[r.field]);
    const params = values.map((v) => bind(v));
    const after = (r: SortRule): string => (r.dir === 'asc' ? '>' : '<');
    if (order.every((r) => r.dir === order[0]!.dir)) {
        return `(${exprs.join(', ')}) ${after(order[0]!)} (${params.join(', ')})`;
    }
    let condition = '';
    for (let i = order.length - 1; i >= 0; i--) {
        const strictly = `${exprs[i]} ${after(order[i]!)} ${params[i]}`;
        condition = condition === '' ? strictly : `${strictly} OR (${exprs[i]} = ${params[i]} AND (${condition}))`;
    }
    // The leading bound is implied by the expansion; spelled out, it lets an index narrow the scan.
    return `${exprs[0]} ${after(order[0]!)}= ${params[0]} AND (${condition})`;
}
