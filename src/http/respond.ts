import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import { INERT_HEADERS } from '../lib/answer-headers.js';

/** Writes a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
}

/** The JSON body of an error answer: `{status, error, message, ...extra}`; 5xx never carry internals. */
export function errorBody(error: unknown, requestId: string): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
    if (error instanceof AppError) {
        const body: Record<string, unknown> = { status: error.status, error: error.error, message: error.message, ...error.extra };
        if (error.status >= 500) body.requestId = requestId;
        return { status: error.status, body, headers: error.headers };
    }
    return {
        status: 500,
        body: { status: 500, error: 'Internal Server Error', message: 'An unexpected error occurred', requestId },
        headers: {},
    };
}

/**
 * The one mapping from a thrown error to an HTTP answer. It carries the inert headers: ingest's
 * refusals (404, 401, 403, 429) are answers on `/webhook/*`, and on other routes they cost nothing.
 */
export function sendError(res: ServerResponse, error: unknown, requestId: string): void {
    if (res.headersSent) {
        res.destroy();
        return;
    }
    const { status, body, headers } = errorBody(error, requestId);
    sendJson(res, status, body, { ...headers, 'X-Request-Id': requestId, ...INERT_HEADERS });
}
