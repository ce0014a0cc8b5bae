import type { IncomingMessage } from 'node:http';
import { hasHeader } from '../lib/headers.js';
import type { IngestContext, PreparedResponse } from './context.js';

/** Adds permissive CORS (unless configured), the request id and `extra` to the prepared headers. */
export function finalHeaders(req: IncomingMessage, prepared: PreparedResponse, requestId: string, extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...extra, ...prepared.headers };
    if (!hasHeader(headers, 'access-control-allow-origin')) {
        headers['Access-Control-Allow-Origin'] = '*';
        const wantedMethod = req.headers['access-control-request-method'];
        if (req.method === 'OPTIONS' && wantedMethod) {
            headers['Access-Control-Allow-Methods'] = `${wantedMethod}, GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS`;
            const wantedHeaders = req.headers['access-control-request-headers'];
            if (wantedHeaders) headers['Access-Control-Allow-Headers'] = wantedHeaders;
            headers['Access-Control-Max-Age'] = '600';
        }
    }
    if (typeof prepared.body !== 'string' && !Buffer.isBuffer(prepared.body) && !hasHeader(headers, 'content-type')) {
        headers['Content-Type'] = 'application/json; charset=utf-8';
    }
    headers['X-Request-Id'] = requestId;
    return headers;
}

/** Writes the prepared answer; HEAD, 204 and 304 carry no body. */
export function sendPrepared(ctx: IngestContext): void {
    const { req, res, response } = ctx;
    const { body } = response;
    const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const bodyless = req.method === 'HEAD' || response.status === 204 || response.status === 304;
    if (bodyless) {
        res.writeHead(response.status, response.headers).end();
        return;
    }
    res.writeHead(response.status, { ...response.headers, 'Content-Length': Buffer.byteLength(payload) });
    res.end(payload);
}
