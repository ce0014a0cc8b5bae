/** How the body of an event is kept. */
export type BodyKind =
    /** No body bytes. */
    | 'empty'
    /** Valid UTF-8 text that parsed as JSON and is served as an object (enableJSONParsing on). */
    | 'json'
    /** Valid UTF-8 text, served as a string. */
    | 'text'
    /** Bytes that are not valid UTF-8, served base64-encoded. */
    | 'binary'
    /** Streamed to the key-value store; only the payload route serves it. */
    | 'offloaded';

/** A captured request as the ingest pipeline hands it to storage. */
export interface NewEvent {
    id: string;
    webhookId: string;
    /** Capture time, ms since the epoch. */
    timestamp: number;
    method: string;
    statusCode: number;
    size: number;
    processingTime: number;
    requestId: string;
    requestUrl: string;
    contentType: string;
    remoteIp: string;
    userAgent: string;
    headers: Record<string, unknown>;
    query: Record<string, unknown>;
    bodyKind: BodyKind;
    /** The body bytes as received (after redactBodyPaths); absent when offloaded or empty. */
    bodyRaw?: Uint8Array;
    /** Key in the blob store when offloaded. */
    blobKey?: string;
    responseHeaders: Record<string, unknown>;
    responseBody: unknown;
    signatureValid?: boolean;
    signatureProvider?: string;
    signatureError?: string;
    /** Extra facts recorded on the event (forwarding outcome, rejection reason, ...). */
    meta?: Record<string, unknown>;
}

/** A captured event as the API returns it (GET /logs/:logId). */
export interface LogEntry {
    id: string;
    webhookId: string;
    timestamp: string;
    method: string;
    statusCode: number;
    size: number;
    processingTime: number;
    requestId: string;
    requestUrl: string;
    contentType: string;
    remoteIp: string;
    userAgent: string;
    headers: Record<string, unknown>;
    query: Record<string, unknown>;
    body: unknown;
    bodyEncoding?: 'base64';
    responseHeaders: Record<string, unknown>;
    responseBody: unknown;
    signatureValid: boolean | null;
    signatureProvider: string | null;
    signatureError: string | null;
    meta?: Record<string, unknown>;
}

/** The summary fields of a log entry in list results. */
export interface LogSummary {
    id: string;
    webhookId: string;
    timestamp: string;
    method: string;
    statusCode: number;
    size: number;
    processingTime: number;
    requestId: string;
    requestUrl: string;
    contentType: string;
    signatureValid: boolean | null;
    signatureProvider: string | null;
}

/** The stored body of one event, for the payload route and replay. */
export interface StoredBody {
    kind: BodyKind;
    contentType: string;
    /** Inline bytes (empty for `empty`; absent when offloaded). */
    raw?: Buffer;
    blobKey?: string;
    size: number;
}

/** A generated webhook. */
export interface Webhook {
    id: string;
    /** ISO 8601. */
    createdAt: string;
    /** ISO 8601. */
    expiresAt: string;
}
