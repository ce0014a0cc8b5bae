import { Agent as HttpAgent, validateHeaderName, validateHeaderValue } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { pinnedLookup, type CheckedTarget } from './ssrf-guard.js';

/** What one delivery sends; `body` must be fresh for every attempt (a stream is consumed). */
export interface OutgoingRequest {
    method: string;
    headers: Record<string, string>;
    body?: Buffer | Readable;
}

/** The target's answer; its body is cut at RESPONSE_BODY_LIMIT bytes. */
export interface TargetResponse {
    statusCode: number;
    body: string;
    truncated: boolean;
}

/** A delivery that got no answer: `timeout` when the attempt ran out of time, else `network`. */
export class DeliveryError extends Error {
    constructor(readonly kind: 'timeout' | 'network', readonly code: string | undefined, message: string) {
        super(message);
        this.name = 'DeliveryError';
    }
}

/**
 * A request that cannot be put on the wire as given (a method that is not a token, a header with
 * CR/LF or a control character). Not a DeliveryError: sending it again can only fail again, so no
 * schedule retries it.
 */
export class RequestBuildError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'RequestBuildError';
    }
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Throws RequestBuildError naming the first part of `req` that no HTTP/1.1 request can carry. */
export function checkRequest(req: Pick<OutgoingRequest, 'method' | 'headers'>): void {
    if (!TOKEN.test(req.method)) throw new RequestBuildError(`The method ${JSON.stringify(req.method)} is not a valid HTTP method`);
    for (const [name, value] of Object.entries(req.headers)) {
        try {
            validateHeaderName(name);
            validateHeaderValue(name, value);
        } catch {
            throw new RequestBuildError(`The header ${JSON.stringify(name)} cannot be sent: its name is not a token or its value has a CR, LF or other character HTTP forbids`);
        }
    }
}

/** The most of a target's answer kept in memory and reported back. */
export const RESPONSE_BODY_LIMIT = 1024 * 1024;

// Connections are reused between deliveries (forwarding sends many to one place). Each socket was
// opened to an address the guard checked, so reusing it never reaches anything unchecked.
const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * got-scraping, loaded on the first send: with its header generator's networks it is ~90 ms of a
 * process's start (measured, --cpu-prof of `node dist/main.js`), and most runs forward nothing.
 */
type GotScraping = (typeof import('got-scraping'))['gotScraping'];
let client: Promise<GotScraping> | undefined;
const loadGotScraping = (): Promise<GotScraping> => (client ??= import('got-scraping').then((m) => m.gotScraping));

/**
 * Sends one request with got-scraping, exactly as given: no generated browser headers, no
 * decompression, no redirects followed (a 3xx is the answer, so a redirect into a blocked range is
 * never followed), no retries (the caller's schedule decides), TLS verified, and DNS pinned to the
 * address the SSRF guard checked.
 *
 * `timeoutMs` is a total deadline, whatever the peer does. got's own request timeout misses some
 * peers (a CONNECT answered `200 Connection Established` is a `connect` event, never a response), so
 * a timer of ours ends the attempt too. Past the deadline, an answer whose status arrived is kept
 * with the body read so far (`truncated`): the target has the request, and a retry would repeat it.
 */
export async function sendOnce(target: CheckedTarget, req: OutgoingRequest, timeoutMs: number): Promise<TargetResponse> {
    try {
        checkRequest(req);
    } catch (error) {
        if (req.body !== undefined && !Buffer.isBuffer(req.body)) req.body.destroy();
        throw error;
    }
    const gotScraping = await loadGotScraping();
    return new Promise<TargetResponse>((resolve, reject) => {
        const stream = gotScraping.stream(target.url, {
            method: req.method as 'GET',
            headers: req.headers,
            ...(req.body !== undefined ? { body: req.body } : {}),
            useHeaderGenerator: false,
            followRedirect: false,
            retry: { limit: 0 },
            allowGetBody: true,
            decompress: false,
            throwHttpErrors: false,
            http2: false,
            https: { rejectUnauthorized: true },
            timeout: { request: timeoutMs },
            dnsLookup: pinnedLookup(target),
            agent: agents,
        });
        // A request without a body goes out once the stream's writable side ends; got waits for that
        // (with allowGetBody even on GET), so without this a bodyless request hung until its timeout.
        if (req.body === undefined) stream.end();
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        let statusCode = 0;
        let settled = false;
        const settle = (): boolean => {
            if (settled) return false;
            settled = true;
            clearTimeout(deadline);
            return true;
        };
        const finish = (): void => {
            if (settle()) resolve({ statusCode, body: Buffer.concat(chunks).toString('utf8'), truncated });
        };
        const fail = (error: DeliveryError): void => {
            if (settle()) reject(error);
        };
        const deadline = setTimeout(() => {
            truncated = statusCode !== 0;
            stream.destroy();
            if (req.body !== undefined && !Buffer.isBuffer(req.body)) req.body.destroy();
            if (statusCode !== 0) finish();
            else fail(new DeliveryError('timeout', 'ECONNABORTED', `timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        stream.once('response', (res: { statusCode: number }) => {
            statusCode = res.statusCode;
        });
        // A target that grants a tunnel or a protocol switch hands over a raw socket, never a
        // response: its status is the answer, and the socket is closed (we have nothing to say on it).
        const handedOver = (res: { statusCode?: number }, socket: { destroy(): void }): void => {
            socket.destroy();
            statusCode = res.statusCode ?? 0;
            stream.destroy();
            if (statusCode !== 0) finish();
            else fail(new DeliveryError('network', 'EPROTO', 'the target switched protocols without a status'));
        };
        stream.once('connect', handedOver);
        stream.once('upgrade', handedOver);
        stream.on('data', (chunk: Buffer) => {
            const room = RESPONSE_BODY_LIMIT - size;
            chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
            size += Math.min(room, chunk.length);
            if (size >= RESPONSE_BODY_LIMIT) {
                truncated = true;
                stream.destroy();
                finish();
            }
        });
        stream.once('end', finish);
        stream.once('error', (error: Error & { code?: string }) => {
            // An error after the status arrived (the body broke off, or got's own timeout cut a
            // dripping body) still counts as an answer.
            if (statusCode !== 0) {
                if (error.name === 'TimeoutError') truncated = true;
                return finish();
            }
            if (error.name === 'TimeoutError') fail(new DeliveryError('timeout', 'ECONNABORTED', `timed out after ${timeoutMs} ms`));
            else fail(new DeliveryError('network', error.code, error.message));
        });
    });
}
