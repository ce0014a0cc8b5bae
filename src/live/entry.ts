import { bodyForApi } from '../storage/rows.js';
import { servesBlob, storedBodyText } from '../storage/stored-text.js';
import type { LogEntry, NewEvent } from '../storage/types.js';

/** Bodies larger than this are not inlined in a live frame; the frame points at the payload route. */
export const LIVE_BODY_LIMIT = 64 * 1024;

/** The event as GET /logs/:logId returns it, built from the committed in-memory event (no read back). */
export function liveEntry(e: NewEvent, baseUrl: string): LogEntry {
    const raw = e.bodyRaw ? Buffer.from(e.bodyRaw.buffer, e.bodyRaw.byteOffset, e.bodyRaw.byteLength) : undefined;
    const inline = e.size <= LIVE_BODY_LIMIT && e.bodyKind !== 'offloaded';
    // Only the kind that is served as text needs decoding; binary is served from the bytes.
    const row = raw && inline ? (e.bodyKind === 'binary' ? { text: null, raw } : { text: raw.toString('utf8'), raw: null }) : undefined;
    const entry: LogEntry = {
        id: e.id,
        webhookId: e.webhookId,
        timestamp: new Date(e.timestamp).toISOString(),
        method: e.method,
        statusCode: e.statusCode,
        size: e.size,
        processingTime: e.processingTime,
        requestId: e.requestId,
        requestUrl: e.requestUrl,
        contentType: e.contentType,
        signatureValid: e.signatureValid ?? null,
        signatureProvider: e.signatureProvider ?? null,
        remoteIp: e.remoteIp,
        userAgent: e.userAgent,
        headers: e.headers,
        query: e.query,
        ...bodyForApi(e.bodyKind, row, e.size, e.blobKey ?? null),
        responseHeaders: e.responseHeaders,
        responseBody: e.responseBody ?? null,
        signatureError: e.signatureError ?? null,
        replays: [],
    };
    if (e.meta) entry.meta = e.meta;
    if (e.answeredBy) entry.answeredBy = e.answeredBy;
    if (e.form) entry.form = e.form;
    if (e.formError !== undefined) entry.formError = e.formError;
    return inline ? entry : truncateBody(entry, baseUrl);
}

/** Replaces a body over LIVE_BODY_LIMIT by `{truncated, size, payloadUrl}` (stored entries read back on resume). */
export function truncateBody(entry: LogEntry, baseUrl: string): LogEntry {
    if (entry.size <= LIVE_BODY_LIMIT && !isOffloadedRef(entry.body)) return entry;
    const { bodyEncoding: _dropped, ...rest } = entry;
    return { ...rest, body: { truncated: true, size: entry.size, payloadUrl: `${baseUrl}/logs/${encodeURIComponent(entry.id)}/payload` } };
}

const isOffloadedRef = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { offloaded?: unknown }).offloaded === true;

/**
 * `rawBody` of a frame for a client that asked for raw bodies (`?rawBodies=true`, the `listen`
 * command): the bytes GET /logs/:id/payload serves, base64, so a client that forwards captures
 * needs no second request per capture. Only for bodies up to 64 KB whose payload is the stored body;
 * undefined (the client reads /payload) for larger ones and for those whose payload is a blob (a body
 * a custom script replaced keeps its original there).
 */
export function rawBodyOfEvent(e: NewEvent): string | undefined {
    if (e.size > LIVE_BODY_LIMIT || e.bodyKind === 'offloaded' || e.blobKey) return undefined;
    return e.bodyRaw ? Buffer.from(e.bodyRaw.buffer, e.bodyRaw.byteOffset, e.bodyRaw.byteLength).toString('base64') : '';
}

/** rawBodyOfEvent for an entry the store read back: from its stored text, or the base64 it already shows for binary bodies. */
export function rawBodyOfEntry(entry: LogEntry): string | undefined {
    if (entry.size > LIVE_BODY_LIMIT || servesBlob(entry) || isOffloadedRef(entry.body)) return undefined;
    if (entry.bodyEncoding === 'base64' && typeof entry.body === 'string') return entry.body;
    const text = storedBodyText(entry);
    if (typeof text === 'string') return Buffer.from(text, 'utf8').toString('base64');
    return entry.body === '' && text === null ? '' : undefined;
}
