/** A list item of GET /logs (and the summary part of a streamed event). */
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

/** One recorded replay of an event, oldest first on the entry: the server's own type. */
export type { ReplayRecord } from '../../src/storage/replay-record.js';
import type { ReplayRecord } from '../../src/storage/replay-record.js';

/** A full captured event as GET /logs/:logId returns it (and /log-stream sends it). */
export interface LogEntry extends LogSummary {
    remoteIp: string;
    userAgent: string;
    headers: Record<string, unknown>;
    query: Record<string, unknown>;
    body: unknown;
    bodyEncoding?: 'base64';
    responseHeaders: Record<string, unknown>;
    responseBody: unknown;
    signatureError: string | null;
    meta?: Record<string, unknown>;
    replays?: ReplayRecord[];
}

/** What GET /info tells the page. */
export interface Info {
    version: string;
    status: string;
    system: {
        authActive: boolean;
        retentionHours: number;
        maxPayloadLimit: string;
        webhookCount: number;
        activeWebhooks: { id: string; expiresAt: string }[];
        signatureProvider?: string | null;
    };
    features: string[];
    endpoints: Record<string, string>;
}

/** The answer of POST /replay. */
export interface ReplayResult {
    status?: string;
    targetUrl?: string;
    targetResponseCode?: number;
    targetResponseBody?: string;
    strippedHeaders?: string[];
    resigned?: boolean;
    error?: string;
    message?: string;
    code?: string;
}

/** A page of GET /logs in cursor mode. */
export interface CursorPage {
    items: LogSummary[];
    nextCursor: string | null;
}

export type { AnswerSpec, ResponseSpec } from '../../src/storage/answer-spec.js';
import type { ResponseSpec } from '../../src/storage/answer-spec.js';

/** A webhook as GET /webhooks lists it. */
export interface Webhook {
    id: string;
    url: string;
    name: string | null;
    createdAt: string;
    expiresAt: string;
    response: ResponseSpec | null;
    count: number;
}

/** What PATCH /webhooks/:id changes. */
export interface WebhookPatch {
    name?: string | null;
    response?: ResponseSpec | null;
    retentionHours?: number;
}

/** One problem in a refused body, as a 400 lists it under `details`. */
export interface ErrorDetail {
    path: string;
    message: string;
}
