import type { IncomingMessage } from 'node:http';
import { answerHeaders } from '../lib/answer-headers.js';
import { hasHeader } from '../lib/headers.js';
import type { IngestContext, PreparedResponse } from './context.js';

/**
 * The headers the answer goes out with (and is stored with): the service's own (`extra`, permissive
 * CORS unless configured, a JSON Content-Type for a structured body, X-Request-Id), each replaced by a
 * prepared (configured) header of the same name in any letter case, plus the two inert headers.
 */
export function finalHeaders(req: IncomingMessage, prepared: PreparedResponse, requestId: string, extra: Record<string, string>): Record<string, string> {
    const configured = prepared.headers;
    const own: Record<string, string> = { ...extra };
    if (!hasHeader(configured, 'access-control-allow-origin')) {
        own['Access-Control-Allow-Origin'] = '*';
        const wantedMethod = req.headers['access-control-request-method'];
        if (req.method === 'OPTIONS' && wantedMethod) {
            own['Access-Control-Allow-Methods'] = `${wantedMethod}, GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS`;
            const wantedHeaders = req.headers['access-control-request-headers'];
            if (wantedHeaders) own['Access-Control-Allow-Headers'] = wantedHeaders;
            own['Access-Control-Max-Age'] = '600';
        }
    }
    if (typeof prepared.body !== 'string' && !Buffer.isBuffer(prepared.body)) own['Content-Type'] = 'application/json; charset=utf-8';
    own['X-Request-Id'] = requestId;
    return answerHeaders(own, configured);
}

/** Writes the prepared answer; HEAD, 204 and 304 carry no body and no Content-Length, the rest our computed one. */
export function sendPrepared(ctx: IngestContext): void {
    const { req, res, response } = ctx;
    if (req.method === 'HEAD' || response.status === 204 || response.status === 304) {
        res.writeHead(response.status, response.headers).end();
        return;
    }
    const { body } = response;
    const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    res.writeHead(response.status, { ...response.headers, 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
}
