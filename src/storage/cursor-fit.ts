import { BadRequestError } from '../errors.js';
import { NULLABLE_SORT_FIELDS, type CursorPosition, type SortField, type SortRule } from './query-types.js';
import { totalOrder } from './sort-order.js';

/** Sort fields whose cursor value is a number (or null, for the nullable ones). */
const NUMERIC: ReadonlySet<SortField> = new Set<SortField>(['statusCode', 'size', 'timestamp', 'processingTime', 'signatureValid']);

/**
 * Throws the HTTP layer's 400 when `cursor` cannot be a position in `sort`: one value per rule of the
 * total order but the final id, each of the rule's kind. The HTTP layer checks decoded tokens the
 * same way; this keeps a store from comparing a string with a timestamp for any other caller.
 */
export function assertCursorFits(cursor: CursorPosition, sort: readonly SortRule[]): void {
    const rules = totalOrder(sort).slice(0, -1);
    const fits = typeof cursor.id === 'string' && cursor.values.length === rules.length && rules.every((rule, i) => {
        const value = cursor.values[i];
        return value === null ? NULLABLE_SORT_FIELDS.has(rule.field)
            : NUMERIC.has(rule.field) ? typeof value === 'number' && Number.isFinite(value)
            : rule.field === 'remoteIp' ? typeof value === 'string' && /^[0-9A-F]{32}$/.test(value)
            : typeof value === 'string';
    });
    if (!fits) throw new BadRequestError("Parameter 'cursor' is not a valid cursor: pass nextCursor from a previous page unchanged, or an empty cursor= to start", { parameter: 'cursor' });
}
