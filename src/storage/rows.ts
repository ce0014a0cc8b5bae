import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../lib/json-text.js';
import type { Form } from '../api/capture.js';
import type { LogEntry, LogSummary, NewEvent, BodyKind } from './types.js';
import { keepBodyText } from './stored-text.js';

// How an event looks as a row, shared by every backend (PostgreSQL stores the same encoded
// columns as SQLite, so answers match byte for byte). Only src/storage reads this module.

/** Columns of `events` as they come back from the database. */
export interface EventRow {
    seq: number;
    id: string;
    webhook_id: string;
    ts: number;
    method: string;
    status_code: number;
    size: number;
    processing_time: number;
    request_id: string;
    request_url: string;
    content_type: string;
    remote_ip: string;
    user_agent: string;
    headers: string;
    query: string;
    response_headers: string;
    response_body: string;
    signature_valid: number | null;
    signature_provider: string | null;
    signature_error: string | null;
    body_kind: BodyKind;
    blob_key: string | null;
    meta: string | null;
    /** The rule that answered (its index in the webhook's `response.rules`, and its name); null when none did. */
    answered_index: number | null;
    answered_by: string | null;
    /** A form body's description (api/capture.ts Form), its fields and its files as JSON; null when the body is no form. */
    form_fields: string | null;
    form_files: string | null;
    /** Why the form was not described in full; null when it was (or is no form). */
    form_error: string | null;
}

/** Columns of `bodies`. */
export interface BodyRow {
    text: string | null;
    raw: Buffer | null;
}

/** The SQL column list of a summary, in the order rowToSummary reads it. */
export const SUMMARY_COLUMNS =
    'id, webhook_id, ts, method, status_code, size, processing_time, request_id, request_url, content_type, signature_valid, signature_provider';

/**
 * One event as it travels to the writer thread: the `events` columns in INSERT_EVENT order (the
 * writer adds `ip_bin`), then the body bytes. JSON columns are serialized here, so the message
 * between threads carries flat strings rather than object graphs, which are costly to clone and
 * would be stringified by the writer anyway.
 */
export type EventRecord = [
    id: string,
    webhookId: string,
    ts: number,
    method: string,
    statusCode: number,
    size: number,
    processingTime: number,
    requestId: string,
    requestUrl: string,
    contentType: string,
    remoteIp: string,
    userAgent: string,
    headers: string,
    query: string,
    responseHeaders: string,
    responseBody: string,
    signatureValid: number | null,
    signatureProvider: string | null,
    signatureError: string | null,
    bodyKind: BodyKind,
    blobKey: string | null,
    meta: string | null,
    answeredIndex: number | null,
    answeredBy: string | null,
    formFields: string | null,
    formFiles: string | null,
    formError: string | null,
    body: Uint8Array | null,
    /** For the forwarding backlog: null (not forwarded), 1 (the stored request is exact), 0 (it is not). */
    forward: 0 | 1 | null,
    /** A form body the store describes itself (NewEvent.formSource): its Content-Type and whether credential fields are masked. */
    formSource: [contentType: string, mask: 0 | 1] | null,
];

/** Indexes of the request URL, the remote IP, the query, the body kind, the body and the forward flag in an EventRecord. */
export const REQUEST_URL = 8;
export const REMOTE_IP = 10;
export const QUERY = 13;
export const BODY_KIND = 19;
export const FORM_FIELDS = 24;
export const FORM_FILES = 25;
export const FORM_ERROR = 26;
export const BODY = 27;
const FORWARD = 28;
export const FORM_SOURCE = 29;

/**
 * Encodes an event for the writer. A body that is a view into a larger buffer (a socket read
 * buffer or a pool slab) gets its own exact-size copy: posting a view clones its whole buffer.
 */
export function encodeEvent(e: NewEvent): EventRecord {
    let body: Uint8Array | null = null;
    if (e.bodyRaw && e.bodyKind !== 'empty' && e.bodyKind !== 'offloaded') {
        const raw = e.bodyRaw;
        body = raw.byteOffset === 0 && raw.buffer.byteLength === raw.byteLength ? raw : new Uint8Array(raw);
    }
    return [
        e.id,
        e.webhookId,
        e.timestamp,
        e.method,
        e.statusCode,
        e.size,
        e.processingTime,
        e.requestId,
        e.requestUrl,
        e.contentType,
        e.remoteIp,
        e.userAgent,
        JSON.stringify(e.headers),
        JSON.stringify(e.query),
        JSON.stringify(e.responseHeaders),
        JSON.stringify(e.responseBody ?? null),
        e.signatureValid === undefined ? null : e.signatureValid ? 1 : 0,
        e.signatureProvider ?? null,
        e.signatureError ?? null,
        e.bodyKind,
        e.blobKey ?? null,
        e.meta ? JSON.stringify(e.meta) : null,
        e.answeredBy ? e.answeredBy.index : null,
        e.answeredBy ? e.answeredBy.name : null,
        e.form ? JSON.stringify(e.form.fields) : null,
        e.form ? JSON.stringify(e.form.files) : null,
        e.formError ?? null,
        body,
        e.forward ? (e.forward.exact ? 1 : 0) : null,
        e.formSource ? [e.formSource.contentType, e.formSource.mask ? 1 : 0] : null,
    ];
}

/** The id of an encoded event. */
export const recordId = (r: EventRecord): string => r[0];

/** Whether an encoded event joins the forwarding backlog, and with which `exact` flag. */
export const recordForward = (r: EventRecord): 0 | 1 | null => r[FORWARD];

const bool = (v: number | null): boolean | null => (v === null ? null : v === 1);

/** The summary shape of GET /logs items (without detailUrl). */
export function rowToSummary(r: Pick<EventRow, 'id' | 'webhook_id' | 'ts' | 'method' | 'status_code' | 'size' | 'processing_time' | 'request_id' | 'request_url' | 'content_type' | 'signature_valid' | 'signature_provider'>): LogSummary {
    return {
        id: r.id,
        webhookId: r.webhook_id,
        timestamp: new Date(r.ts).toISOString(),
        method: r.method,
        statusCode: r.status_code,
        size: r.size,
        processingTime: r.processing_time,
        requestId: r.request_id,
        requestUrl: r.request_url,
        contentType: r.content_type,
        signatureValid: bool(r.signature_valid),
        signatureProvider: r.signature_provider,
    };
}

/**
 * A body stored as JSON, parsed. Ingest decides JSON-ness with a scanner tested against JSON.parse;
 * should the two ever disagree, the entry still reads (as its text) instead of failing the request.
 * Rows written before ingest capped the depth (or imported) may nest deeper than any answer can be
 * serialized: those read as their text too.
 */
function parseStored(text: string): unknown {
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) return text;
    try {
        return JSON.parse(text) as unknown;
    } catch {
        return text;
    }
}

/** The body as the API shows it: object for JSON, text, base64 for binary, a reference when offloaded. */
export function bodyForApi(kind: BodyKind, body: BodyRow | undefined, size: number, blobKey: string | null): { body: unknown; bodyEncoding?: 'base64' } {
    switch (kind) {
        case 'empty':
            return { body: '' };
        case 'json':
            return { body: parseStored(body?.text ?? 'null') };
        case 'text':
            return { body: body?.text ?? '' };
        case 'binary':
            return { body: (body?.raw ?? Buffer.alloc(0)).toString('base64'), bodyEncoding: 'base64' };
        case 'offloaded':
            return { body: { offloaded: true, key: blobKey, size } };
    }
}

/** The full entry of GET /logs/:logId. */
export function rowToEntry(r: EventRow, body: BodyRow | undefined): LogEntry {
    const entry: LogEntry = {
        ...rowToSummary(r),
        remoteIp: r.remote_ip,
        userAgent: r.user_agent,
        headers: JSON.parse(r.headers) as Record<string, unknown>,
        query: JSON.parse(r.query) as Record<string, unknown>,
        ...bodyForApi(r.body_kind, body, r.size, r.blob_key),
        responseHeaders: JSON.parse(r.response_headers) as Record<string, unknown>,
        responseBody: JSON.parse(r.response_body) as unknown,
        signatureError: r.signature_error,
    };
    if (r.meta) entry.meta = JSON.parse(r.meta) as Record<string, unknown>;
    // Rows stored before rules existed have no such column (undefined): no rule answered them.
    if (r.answered_index !== null && r.answered_index !== undefined) entry.answeredBy = { index: r.answered_index, name: r.answered_by ?? null };
    // Rows stored before forms were described have no such columns either.
    if (typeof r.form_fields === 'string') entry.form = { fields: JSON.parse(r.form_fields) as Form['fields'], files: JSON.parse(r.form_files ?? '[]') as Form['files'] };
    if (typeof r.form_error === 'string') entry.formError = r.form_error;
    keepBodyText(entry, r.body_kind, body, r.blob_key);
    return entry;
}
