import { NULLABLE_SORT_FIELDS, type CursorPosition, type SortField, type SortRule } from '../../storage/query-types.js';
import { totalOrder } from '../../storage/sort-order.js';
import { sortSignature } from './sort.js';
import { badParam } from '../../filters/values.js';

/** Sort fields whose cursor value is a number (or null, for the nullable ones). */
const NUMERIC: ReadonlySet<SortField> = new Set<SortField>(['statusCode', 'size', 'timestamp', 'processingTime', 'signatureValid']);
const MAX_CURSOR_LENGTH = 8192;

/** What a cursor carries: the sort values and id of the last row seen, and the sort it belongs to. */
interface CursorBody {
    v: (string | number | null)[];
    id: string;
    s: string;
}

/** Encodes a position under `sort` as an opaque base64url token. */
export function encodeCursor(position: CursorPosition, sort: readonly SortRule[]): string {
    const body: CursorBody = { v: position.values, id: position.id, s: sortSignature(sort) };
    return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * Decodes `cursor`: empty means the first page of cursor mode (null). Throws a 400 naming `cursor`
 * when the token is malformed or was issued for another sort order.
 */
export function decodeCursor(text: string, sort: readonly SortRule[]): CursorPosition | null {
    if (text === '') return null;
    const invalid = badParam('cursor', 'is not a valid cursor: pass nextCursor from a previous page unchanged, or an empty cursor= to start');
    if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) throw invalid;
    let body: unknown;
    try {
        body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    } catch {
        throw invalid;
    }
    if (!isCursorBody(body)) throw invalid;
    if (body.s !== sortSignature(sort)) throw badParam('cursor', `was issued for sort '${body.s.slice(0, 200)}', not '${sortSignature(sort)}': keep the sort while paging`);
    const rules = totalOrder(sort).slice(0, -1);
    if (body.v.length !== rules.length) throw invalid;
    rules.forEach((rule, i) => {
        const value = body.v[i];
        const ok = value === null ? NULLABLE_SORT_FIELDS.has(rule.field)
            : NUMERIC.has(rule.field) ? typeof value === 'number' && Number.isFinite(value)
            : rule.field === 'remoteIp' ? typeof value === 'string' && /^[0-9A-F]{32}$/.test(value)
            : typeof value === 'string';
        if (!ok) throw invalid;
    });
    return { values: body.v, id: body.id };
}

function isCursorBody(x: unknown): x is CursorBody {
    if (!x || typeof x !== 'object' || Array.isArray(x)) return false;
    const o = x as Record<string, unknown>;
    return Array.isArray(o.v) && o.v.length <= 16 && typeof o.id === 'string' && typeof o.s === 'string';
}
