import type { ExactField, JsonColumn, NumberField, PartialField, SortField } from '../../query-types.js';

// Every column name that reaches SQL text comes from one of these tables; values are always bound.
// Text columns are compared and ordered under the "C" collation whatever the database's locale:
// byte order of UTF-8 is code point order, as SQLite's BINARY collation orders, and LIKE folds
// only ASCII letters under "C", as SQLite's LIKE does. The indexes (query-indexes.ts) carry the
// same collation, so they serve these expressions.

/** A text column under the "C" collation. */
const c = (column: string): string => `(${column} COLLATE "C")`;

/** Exact-match fields → column expression. */
export const EXACT_COLUMNS: Readonly<Record<ExactField, string>> = {
    id: c('e.id'),
    webhookId: c('e.webhook_id'),
    requestId: c('e.request_id'),
    signatureProvider: c('e.signature_provider'),
    method: c('e.method'),
    answeredBy: c('e.answered_by'),
};

/** Numeric fields → column; `integer` when the column holds whole numbers (bigint/int). */
export const NUMBER_COLUMNS: Readonly<Record<NumberField, { column: string; integer: boolean }>> = {
    statusCode: { column: 'e.status_code', integer: true },
    size: { column: 'e.size', integer: true },
    processingTime: { column: 'e.processing_time', integer: false },
    timestamp: { column: 'e.ts', integer: true },
};

/** Partial-match fields → column expression. */
export const PARTIAL_COLUMNS: Readonly<Record<PartialField, string>> = {
    requestUrl: c('e.request_url'),
    contentType: c('e.content_type'),
    userAgent: c('e.user_agent'),
};

/** JSON-text columns → column expression; `body` comes from the bodies tables (`body_text` of events_with_body). */
export const JSON_COLUMNS: Readonly<Record<JsonColumn, string>> = {
    headers: c('e.headers'),
    query: c('e.query'),
    body: c('e.body_text'),
    responseHeaders: c('e.response_headers'),
    responseBody: c('e.response_body'),
    form: c('e.form_fields'),
};

/** A form with files (hasFiles=true): its files list is not empty (as sqlite/query/columns.ts). */
export const HAS_FILES = `(e.form_files IS NOT NULL AND e.form_files <> '[]')`;

/**
 * Sort fields → the expression ordered by. remoteIp orders by the 16-byte address, as SQLite;
 * signatureValid is a boolean here (false < true, as SQLite's 0 < 1).
 */
export const SORT_COLUMNS: Readonly<Record<SortField, string>> = {
    id: c('e.id'),
    statusCode: 'e.status_code',
    method: c('e.method'),
    size: 'e.size',
    timestamp: 'e.ts',
    remoteIp: 'e.ip_bin',
    processingTime: 'e.processing_time',
    webhookId: c('e.webhook_id'),
    userAgent: c('e.user_agent'),
    requestUrl: c('e.request_url'),
    contentType: c('e.content_type'),
    requestId: c('e.request_id'),
    signatureValid: 'e.signature_valid',
    signatureProvider: c('e.signature_provider'),
    signatureError: c('e.signature_error'),
};

/** Sort fields held in whole-number columns (a cursor value for them binds as bigint when it is whole). */
export const INTEGER_SORT_FIELDS: ReadonlySet<SortField> = new Set<SortField>(['statusCode', 'size', 'timestamp']);
