import { ipToBytes } from '../../lib/ip.js';
import type { LogEntry, LogSummary, NewEvent, BodyKind } from '../types.js';

/** Columns of `events` as they come back from SQLite. */
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
}

/** Columns of `bodies`. */
export interface BodyRow {
    text: string | null;
    raw: Buffer | null;
}

/** The SQL column list of a summary, in the order rowToSummary reads it. */
export const SUMMARY_COLUMNS =
    'id, webhook_id, ts, method, status_code, size, processing_time, request_id, request_url, content_type, signature_valid, signature_provider';

/** Named parameters for the events INSERT. */
export function eventParams(e: NewEvent): Record<string, unknown> {
    return {
        id: e.id,
        webhook_id: e.webhookId,
        ts: e.timestamp,
        method: e.method,
        status_code: e.statusCode,
        size: e.size,
        processing_time: e.processingTime,
        request_id: e.requestId,
        request_url: e.requestUrl,
        content_type: e.contentType,
        remote_ip: e.remoteIp,
        ip_bin: ipToBytes(e.remoteIp),
        user_agent: e.userAgent,
        headers: JSON.stringify(e.headers),
        query: JSON.stringify(e.query),
        response_headers: JSON.stringify(e.responseHeaders),
        response_body: JSON.stringify(e.responseBody ?? null),
        signature_valid: e.signatureValid === undefined ? null : e.signatureValid ? 1 : 0,
        signature_provider: e.signatureProvider ?? null,
        signature_error: e.signatureError ?? null,
        body_kind: e.bodyKind,
        blob_key: e.blobKey ?? null,
        meta: e.meta ? JSON.stringify(e.meta) : null,
    };
}

/** The INSERT statement matching eventParams. */
export const INSERT_EVENT = `INSERT INTO events (id, webhook_id, ts, method, status_code, size, processing_time, request_id,
    request_url, content_type, remote_ip, ip_bin, user_agent, headers, query, response_headers, response_body,
    signature_valid, signature_provider, signature_error, body_kind, blob_key, meta)
    VALUES (@id, @webhook_id, @ts, @method, @status_code, @size, @processing_time, @request_id, @request_url,
    @content_type, @remote_ip, @ip_bin, @user_agent, @headers, @query, @response_headers, @response_body,
    @signature_valid, @signature_provider, @signature_error, @body_kind, @blob_key, @meta)`;

/** How the body goes into `bodies`: text when it is valid UTF-8, raw bytes otherwise. */
export function bodyParams(e: NewEvent): { text: string | null; raw: Buffer | null } | null {
    if (!e.bodyRaw || e.bodyKind === 'empty' || e.bodyKind === 'offloaded') return null;
    const bytes = Buffer.from(e.bodyRaw.buffer, e.bodyRaw.byteOffset, e.bodyRaw.byteLength);
    if (e.bodyKind === 'binary') return { text: null, raw: bytes };
    return { text: bytes.toString('utf8'), raw: null };
}

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

/** The body as the API shows it: object for JSON, text, base64 for binary, a reference when offloaded. */
export function bodyForApi(kind: BodyKind, body: BodyRow | undefined, size: number, blobKey: string | null): { body: unknown; bodyEncoding?: 'base64' } {
    switch (kind) {
        case 'empty':
            return { body: '' };
        case 'json':
            return { body: JSON.parse(body?.text ?? 'null') as unknown };
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
    return entry;
}
