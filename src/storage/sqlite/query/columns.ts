import type { ExactField, JsonColumn, NumberField, PartialField, SortField } from '../../query-types.js';

// Every column name that reaches SQL text comes from one of these tables; values are always bound.

/** Exact-match fields → column. */
export const EXACT_COLUMNS: Readonly<Record<ExactField, string>> = {
    id: 'e.id',
    webhookId: 'e.webhook_id',
    requestId: 'e.request_id',
    signatureProvider: 'e.signature_provider',
    method: 'e.method',
    answeredBy: 'e.answered_by',
};

/** Numeric fields → column (`timestamp` is ms since the epoch in `ts`). */
export const NUMBER_COLUMNS: Readonly<Record<NumberField, string>> = {
    statusCode: 'e.status_code',
    size: 'e.size',
    processingTime: 'e.processing_time',
    timestamp: 'e.ts',
};

/** Partial-match fields → column. */
export const PARTIAL_COLUMNS: Readonly<Record<PartialField, string>> = {
    requestUrl: 'e.request_url',
    contentType: 'e.content_type',
    userAgent: 'e.user_agent',
};

/** JSON-text columns → column; `body` lives in the bodies table (joined as `b`). */
export const JSON_COLUMNS: Readonly<Record<JsonColumn, string>> = {
    headers: 'e.headers',
    query: 'e.query',
    body: 'b.text',
    responseHeaders: 'e.response_headers',
    responseBody: 'e.response_body',
    form: 'e.form_fields',
};

/** A form with files (hasFiles=true): its files list is not empty. */
export const HAS_FILES = `(e.form_files IS NOT NULL AND e.form_files <> '[]')`;

/**
 * Sort fields → the column ordered by. Plain columns (no IFNULL) so that indexes serve ORDER BY;
 * SQLite puts NULL first ascending and last descending, and the keyset predicate (order.ts) follows
 * the same rule. remoteIp orders by the 16-byte address (IPv4 as ::ffff:a.b.c.d), not by text.
 */
export const SORT_COLUMNS: Readonly<Record<SortField, string>> = {
    id: 'e.id',
    statusCode: 'e.status_code',
    method: 'e.method',
    size: 'e.size',
    timestamp: 'e.ts',
    remoteIp: 'e.ip_bin',
    processingTime: 'e.processing_time',
    webhookId: 'e.webhook_id',
    userAgent: 'e.user_agent',
    requestUrl: 'e.request_url',
    contentType: 'e.content_type',
    requestId: 'e.request_id',
    signatureValid: 'e.signature_valid',
    signatureProvider: 'e.signature_provider',
    signatureError: 'e.signature_error',
};
