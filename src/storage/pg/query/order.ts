import { NULLABLE_SORT_FIELDS, type CursorPosition, type SortRule } from '../../query-types.js';
import { INTEGER_SORT_FIELDS, SORT_COLUMNS } from './columns.js';
import { bindNumber, bindText, type Params } from './params.js';

// SQLite puts NULL first ascending and last descending; PostgreSQL's default is the opposite, so
// nullable fields say it (and their indexes are built NULLS FIRST to serve it both ways). Fields
// that are never null keep the default, which their indexes serve.
const nulls = (r: SortRule): string => (NULLABLE_SORT_FIELDS.has(r.field) ? (r.dir === 'asc' ? ' NULLS FIRST' : ' NULLS LAST') : '');

/** `ORDER BY` terms for a total order. */
export function orderByClause(order: readonly SortRule[]): string {
    return order.map((r) => `${SORT_COLUMNS[r.field]} ${r.dir === 'asc' ? 'ASC' : 'DESC'}${nulls(r)}`).join(', ');
}

/** `ORDER BY` over a subquery (`w` unless named) that carries the sort values as k0..kN (see sortKeyColumns). */
export function orderByKeys(order: readonly SortRule[], alias = 'w'): string {
    return order.map((r, i) => `${alias}.k${i} ${r.dir === 'asc' ? 'ASC' : 'DESC'}${nulls(r)}`).join(', ');
}

/** Result columns k0..kN holding each row's sort values, for the next cursor (the last one is id). */
export function sortKeyColumns(order: readonly SortRule[]): string {
    return order.map((r, i) => `${SORT_COLUMNS[r.field]} AS k${i}`).join(', ');
}

/**
 * A cursor value bound to compare as SQLite compares it with the column: remoteIp travels as hex
 * and compares as bytes; signatureValid travels as 0/1 (SQLite's integers), any other number
 * compares with the column read as 0/1; numbers compare exactly. `column` is the expression to
 * compare, which becomes the integer form for an odd signatureValid value.
 */
function bound(rule: SortRule, v: string | number, p: Params): { column: string; value: string } {
    const column = SORT_COLUMNS[rule.field];
    if (rule.field === 'remoteIp') return { column, value: p.bind(Buffer.from(String(v), 'hex'), 'bytea') };
    if (rule.field === 'signatureValid') {
        if (v === 0 || v === 1) return { column, value: p.bind(v === 1, 'boolean') };
        return { column: `(${column})::int`, value: p.bind(Number(v), 'float8') };
    }
    const numeric = INTEGER_SORT_FIELDS.has(rule.field) || rule.field === 'processingTime';
    if (numeric !== (typeof v === 'number')) unusable();
    if (typeof v === 'number') return { column, value: bindNumber(p, v, INTEGER_SORT_FIELDS.has(rule.field)) };
    // The HTTP layer checked the kinds; a string for a number column or a NUL cannot be compared here.
    return { column, value: bindText(p, v) ?? unusable() };
}

const unusable = (): never => {
    throw new UnusableCursorError();
};

/** A cursor whose values cannot be compared in PostgreSQL (the caller answers 400). */
export class UnusableCursorError extends Error {}

/**
 * "Comes after `position` in `order`": the keyset predicate, with NULL placed as SQLite sorts it.
 * One direction and no nullable column become a row-value comparison, which an index seeks;
 * otherwise the rules expand one by one, led by a plain bound on the first column so an index can
 * still narrow the scan (the same shape as the SQLite backend's).
 */
export function keysetCondition(order: readonly SortRule[], position: CursorPosition, p: Params): string {
    const values = [...position.values, position.id];
    const nullable = (r: SortRule): boolean => NULLABLE_SORT_FIELDS.has(r.field);
    if (order.every((r) => r.dir === order[0]!.dir && !nullable(r))) {
        const pairs = order.map((r, i) => bound(r, values[i] ?? unusable(), p));
        return `(${pairs.map((b) => b.column).join(', ')}) ${order[0]!.dir === 'asc' ? '>' : '<'} (${pairs.map((b) => b.value).join(', ')})`;
    }
    let condition = '';
    let lead = '';
    for (let i = order.length - 1; i >= 0; i--) {
        const rule = order[i]!;
        const v = values[i] ?? null;
        const b = v === null ? { column: SORT_COLUMNS[rule.field], value: '' } : bound(rule, v, p);
        const col = b.column;
        const after = v === null ? (rule.dir === 'asc' ? `${col} IS NOT NULL` : '')
            : rule.dir === 'asc' ? `${col} > ${b.value}` : nullable(rule) ? `(${col} < ${b.value} OR ${col} IS NULL)` : `${col} < ${b.value}`;
        const equal = v === null ? `${col} IS NULL` : `${col} = ${b.value}`;
        const rest = condition === '' ? '' : `${equal} AND (${condition})`;
        condition = [after, rest].filter(Boolean).join(' OR ') || 'false';
        if (i === 0) lead = leadingBound(rule, b, v, nullable(rule));
    }
    return `${lead}(${condition})`;
}

/** A sargable bound on the first sort column implied by the predicate, with its AND, or nothing. */
function leadingBound(rule: SortRule, b: { column: string; value: string }, v: string | number | null, nullable: boolean): string {
    if (v === null) return rule.dir === 'desc' ? `${b.column} IS NULL AND ` : '';
    if (rule.dir === 'asc') return `${b.column} >= ${b.value} AND `;
    return nullable ? '' : `${b.column} <= ${b.value} AND `;
}
