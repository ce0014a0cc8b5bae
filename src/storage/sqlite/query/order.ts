import { NULLABLE_SORT_FIELDS, type CursorPosition, type SortRule } from '../../query-types.js';
import { SORT_COLUMNS } from './columns.js';

type Bind = (value: unknown) => string;

/** `ORDER BY` terms for a total order; `sortInMemory` keeps SQLite from walking an index for it. */
export function orderByClause(order: readonly SortRule[], sortInMemory = false): string {
    return order.map((r, i) => `${i === 0 && sortInMemory ? '+' : ''}${SORT_COLUMNS[r.field]} ${r.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
}

/** The sort columns of `e` as o0..oN, for a subquery that hands rows on in order (see page.ts). */
export function windowColumns(order: readonly SortRule[]): string {
    return order.map((r, i) => `${SORT_COLUMNS[r.field]} AS o${i}`).join(', ');
}

/** `ORDER BY` over a window subquery's o0..oN; SQLite sees the subquery already yields this order. */
export function windowOrderBy(order: readonly SortRule[]): string {
    return order.map((r, i) => `w.o${i} ${r.dir === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
}

/** Result columns k0..kN holding each row's sort values, for the next cursor (the last one is id). */
export function sortKeyColumns(order: readonly SortRule[]): string {
    return order.map((r, i) => `${SORT_COLUMNS[r.field]} AS k${i}`).join(', ');
}

/** A cursor value as SQLite compares it: remoteIp travels as hex and compares as bytes. */
const sqlValue = (rule: SortRule, v: string | number | null): unknown => (rule.field === 'remoteIp' && typeof v === 'string' ? Buffer.from(v, 'hex') : v);

/**
 * "Comes after `position` in `order`": the keyset predicate, on the same columns as ORDER BY and
 * with NULL placed as SQLite sorts it (first ascending, last descending). One direction and no
 * nullable column become a row-value comparison, which SQLite seeks in an index; otherwise the rules
 * expand one by one, led by a plain bound on the first column so an index can still narrow the scan.
 * `column` names each rule's column (by default the event column; a pass names its k0..kN).
 */
export function keysetCondition(order: readonly SortRule[], position: CursorPosition, bind: Bind, column: (rule: SortRule, i: number) => string = (r) => SORT_COLUMNS[r.field]): string {
    const values = [...position.values, position.id];
    const nullable = (r: SortRule): boolean => NULLABLE_SORT_FIELDS.has(r.field);
    if (order.every((r) => r.dir === order[0]!.dir && !nullable(r))) {
        const params = order.map((r, i) => bind(sqlValue(r, values[i] ?? null)));
        return `(${order.map(column).join(', ')}) ${order[0]!.dir === 'asc' ? '>' : '<'} (${params.join(', ')})`;
    }
    let condition = '';
    for (let i = order.length - 1; i >= 0; i--) {
        const rule = order[i]!;
        const col = column(rule, i);
        const v = values[i] ?? null;
        const p = v === null ? '' : bind(sqlValue(rule, v));
        const after = v === null ? (rule.dir === 'asc' ? `${col} IS NOT NULL` : '')
            : rule.dir === 'asc' ? `${col} > ${p}` : nullable(rule) ? `(${col} < ${p} OR ${col} IS NULL)` : `${col} < ${p}`;
        const equal = v === null ? `${col} IS NULL` : `${col} = ${p}`;
        const rest = condition === '' ? '' : `${equal} AND (${condition})`;
        condition = [after, rest].filter(Boolean).join(' OR ') || '0';
    }
    return `${leadingBound(order[0]!, column(order[0]!, 0), values[0] ?? null, nullable(order[0]!), bind)}(${condition})`;
}

/** A sargable bound on the first sort column implied by the predicate, with its AND, or nothing. */
function leadingBound(rule: SortRule, col: string, v: string | number | null, nullable: boolean, bind: Bind): string {
    if (v === null) return rule.dir === 'desc' ? `${col} IS NULL AND ` : '';
    if (rule.dir === 'asc') return `${col} >= ${bind(sqlValue(rule, v))} AND `;
    return nullable ? '' : `${col} <= ${bind(sqlValue(rule, v))} AND `;
}
