// Storage's own types; the shapes the API shows (a captured event, a replay, an answer) are src/api's.
import type { LogEntry } from '../api/capture.js';
import type { ResponseSpec } from '../api/webhook.js';
export type { ForwardOutcome, LogEntry, LogSummary, ReplayRecord } from '../api/capture.js';
export type { AnswerSpec, ResponseSpec } from '../api/webhook.js';

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

/** The request and answer fields every captured event has, stored and served alike (LogEntry's, src/api). */
export type EventEnvelope = Omit<LogEntry, 'timestamp' | 'body' | 'bodyEncoding' | 'signatureValid' | 'signatureProvider' | 'signatureError' | 'replays' | 'forward'>;

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
    /**
     * A form body (in bodyRaw) that the store describes itself, off the capture thread
     * (EventLog.describesForms): `form` and `formError` are set on this object before append resolves.
     */
    formSource?: { contentType: string; mask: boolean };
}

/** A log entry without its decoded body, for exports that carry the stored bytes apart (HAR). */
export type ExportEntry = Omit<LogEntry, 'body' | 'bodyEncoding'>;

/** The stored body of one event, for the payload route and replay. */
export interface StoredBody {
    kind: BodyKind;
    contentType: string;
    /** Inline bytes (empty for `empty`; absent when offloaded). */
    raw?: Buffer;
    blobKey?: string;
    size: number;
}

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
