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

/** Columns holding serialized JSON, searchable as text or by key. */
export type JsonColumn = 'headers' | 'query' | 'body' | 'responseHeaders' | 'responseBody';
export type ExactField = 'id' | 'webhookId' | 'requestId' | 'signatureProvider' | 'method';
export type NumberField = 'statusCode' | 'size' | 'processingTime' | 'timestamp';
export type PartialField = 'requestUrl' | 'contentType' | 'userAgent';
export type RangeOp = 'eq' | 'gte' | 'gt' | 'lte' | 'lt';

/** One parsed filter of GET /logs; every filter in a query must hold (AND). */
export type Filter =
    | { kind: 'exact'; field: ExactField; value: string }
    /** Numbers; timestamps as ms since the epoch. */
    | { kind: 'range'; field: NumberField; op: RangeOp; value: number }
    | { kind: 'partial'; field: PartialField; value: string }
    /** remoteIp: inclusive range of 16-byte addresses (an exact IP is a /32 or /128). */
    | { kind: 'ip'; lo: Buffer; hi: Buffer }
    | { kind: 'bool'; field: 'signatureValid'; value: boolean }
    /** Substring over the serialized column. */
    | { kind: 'text'; column: JsonColumn; value: string }
    /** A key (dot path split in segments) whose value equals `value`. */
    | { kind: 'keyed'; column: JsonColumn; path: string[]; value: string };

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
