import type { LogSummary } from './types.js';

/** Fields GET /logs can sort by (SPEC.md). */
export const SORT_FIELDS = [
    'id', 'statusCode', 'method', 'size', 'timestamp', 'remoteIp', 'processingTime', 'webhookId', 'userAgent',
    'requestUrl', 'contentType', 'requestId', 'signatureValid', 'signatureProvider', 'signatureError',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

/** Sort fields an event may lack (null). Null sorts first ascending and last descending. */
export const NULLABLE_SORT_FIELDS: ReadonlySet<SortField> = new Set<SortField>(['remoteIp', 'signatureValid', 'signatureProvider', 'signatureError']);

/** One sort rule. */
export interface SortRule {
    field: SortField;
    dir: 'asc' | 'desc';
}

// The filters are the filter language's own (src/filters); storage code reads them from here too.
export type { ExactField, Filter, JsonColumn, NumberField, PartialField, RangeOp } from '../filters/types.js';
import type { Filter } from '../filters/types.js';

/**
 * A decoded keyset cursor: the sort values of the last row seen (one per rule of the total order
 * but its final id; remoteIp as 32 uppercase hex digits; null where the event lacks the field) plus its id.
 */
export interface CursorPosition {
    values: (string | number | null)[];
    id: string;
}

/** A validated GET /logs query. */
export interface LogsQuery {
    filters: Filter[];
    /** Rules as requested; the store completes them to a total order (see sort-order.ts). */
    sort: SortRule[];
    limit: number;
    offset: number;
    /** Absent: offset mode. null: cursor mode from the first page. */
    cursor?: CursorPosition | null;
}

/** What the store answers for a query. */
export interface LogsPage {
    items: LogSummary[];
    /** Offset mode only. */
    total?: number;
    /** Cursor mode: position after the last item, when more may follow. */
    next?: CursorPosition | null;
}
