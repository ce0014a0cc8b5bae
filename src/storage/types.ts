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

/** The request and answer fields every captured event has, stored and served alike. */
export interface EventEnvelope {
    id: string;
    webhookId: string;
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
    responseHeaders: Record<string, unknown>;
    responseBody: unknown;
    /** Extra facts recorded on the event (forwarding outcome, rejection reason, ...). */
    meta?: Record<string, unknown>;
}

/** A captured request as the ingest pipeline hands it to storage. */
export interface NewEvent extends EventEnvelope {
    /** Capture time, ms since the epoch. */
    timestamp: number;
    bodyKind: BodyKind;
    /** The body bytes as received (after redactBodyPaths); absent when offloaded or empty. */
    bodyRaw?: Uint8Array;
    /** Key in the blob store when offloaded. */
    blobKey?: string;
    signatureValid?: boolean;
    signatureProvider?: string;
    signatureError?: string;
    /**
     * Set when the capture is to be forwarded: it joins the forwarding backlog in the same commit.
     * `exact`: the stored body and headers are the ones to forward (no redaction, no script edit).
     */
    forward?: { exact: boolean };
}

import type { ReplayRecord } from './replay-record.js';
export type { ReplayRecord };

/** What became of forwarding an event to `forwardUrl`, as GET /logs/:logId shows it under `forward`. */
export interface ForwardOutcome {
    /** `delivered`: the target answered (any status); `failed`: no attempt got an answer; `dropped`: never sent. */
    status: 'pending' | 'delivered' | 'failed' | 'dropped';
    url: string;
    statusCode: number | null;
    attempts: number;
    error: string | null;
    /** When this outcome was reached, ISO 8601. */
    at: string;
}

/** A captured event as the API returns it (GET /logs/:logId). */
export interface LogEntry extends EventEnvelope {
    /** Capture time, ISO 8601. */
    timestamp: string;
    body: unknown;
    bodyEncoding?: 'base64';
    signatureValid: boolean | null;
    signatureProvider: string | null;
    signatureError: string | null;
    /** Replays of this event, oldest first (the latest 50); [] when never replayed. */
    replays?: ReplayRecord[];
    /** The forwarding outcome, when `forwardUrl` was set at capture. */
    forward?: ForwardOutcome;
}

/** A log entry without its decoded body, for exports that carry the stored bytes apart (HAR). */
export type ExportEntry = Omit<LogEntry, 'body' | 'bodyEncoding'>;

/** The summary fields of a log entry in list results. */
export type LogSummary = Pick<
    LogEntry,
    'id' | 'webhookId' | 'timestamp' | 'method' | 'statusCode' | 'size' | 'processingTime' | 'requestId' | 'requestUrl' | 'contentType' | 'signatureValid' | 'signatureProvider'
>;

/** The stored body of one event, for the payload route and replay. */
export interface StoredBody {
    kind: BodyKind;
    contentType: string;
    /** Inline bytes (empty for `empty`; absent when offloaded). */
    raw?: Buffer;
    blobKey?: string;
    size: number;
}

export type { AnswerSpec, ResponseSpec } from './answer-spec.js';
import type { ResponseSpec } from './answer-spec.js';

/** A webhook, as stored: generated at start or created through POST /webhooks. */
export interface Webhook {
    id: string;
    /** ISO 8601. */
    createdAt: string;
    /** ISO 8601. */
    expiresAt: string;
    name?: string | null;
    /** Its own answer; absent or null: the run's defaults. */
    response?: ResponseSpec | null;
    /** When the record was last written, ms since the epoch (the newest write wins between runs). */
    updatedAt?: number;
}
