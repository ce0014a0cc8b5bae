import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/** One HTTP request as the command makes it, to the service or to the local server. */
export interface HttpRequest {
    method: string;
    /** The request target (path and query) exactly as sent; the URL's own when absent. */
    path?: string;
    headers: OutgoingHttpHeaders;
    /** Bytes, a stream piped as the body, or none. */
    body?: Buffer | Readable | undefined;
    agent: http.Agent;
    /** The socket may stay idle this long before the request fails with TimeoutError. */
    timeoutMs: number;
    signal?: AbortSignal | undefined;
}

/** A request whose socket stayed idle past its timeout. */
export class TimeoutError extends Error {
    readonly code = 'ETIMEDOUT';
}

/** Keep-alive agents (HTTP and HTTPS), one pair per party: the service, the local server. */
export function agents(maxSockets: number): { http: http.Agent; https: https.Agent } {
    return { http: new http.Agent({ keepAlive: true, maxSockets }), https: new https.Agent({ keepAlive: true, maxSockets }) };
}

/**
 * Sends a request and resolves with the response once its head arrives (any status); the caller
 * reads or discards the body. Rejects on a network error, a timeout or an abort; a body stream that
 * fails aborts the request with its error.
 */
export function request(url: URL, r: HttpRequest): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
        const client = url.protocol === 'https:' ? https : http;
        const req = client.request(url, { method: r.method, headers: r.headers, agent: r.agent, signal: r.signal, ...(r.path !== undefined ? { path: r.path } : {}) });
        req.setTimeout(r.timeoutMs, () => req.destroy(new TimeoutError(`no answer within ${r.timeoutMs} ms`)));
        // `on`, not `once`: a body that fails after the answer came would otherwise be an unhandled error.
        req.on('error', reject);
        req.once('response', (res) => {
            // The head is in: from here on the caller owns the timing of the body.
            req.setTimeout(0);
            resolve(res);
        });
        const body = r.body;
        if (body === undefined) req.end();
        else if (Buffer.isBuffer(body)) req.end(body);
        else {
            body.on('error', (error) => req.destroy(error));
            body.pipe(req);
        }
    });
}

/** Reads a whole response body (for small answers: JSON, errors). */
export async function readAll(res: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
}

/** Reads up to `limit` bytes of a body and discards the rest; resolves with the kept bytes and the full size. */
export async function readSome(res: Readable, limit: number): Promise<{ bytes: Buffer; size: number }> {
    const chunks: Buffer[] = [];
    let kept = 0;
    let size = 0;
    for await (const chunk of res) {
        const c = chunk as Buffer;
        size += c.length;
        if (kept < limit) {
            const part = c.subarray(0, limit - kept);
            chunks.push(part);
            kept += part.length;
        }
    }
    return { bytes: Buffer.concat(chunks), size };
}

/** A response's headers as `name: value` lines, in the order received. */
export function headerLines(res: { rawHeaders: string[] }): string[] {
    const lines: string[] = [];
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) lines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
    return lines;
}

/** The headers of a response as a plain object (for --json --verbose). */
export const headersOf = (headers: IncomingHttpHeaders): Record<string, string | string[]> =>
    Object.fromEntries(Object.entries(headers).filter((e): e is [string, string | string[]] => e[1] !== undefined));
