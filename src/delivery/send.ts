import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import { gotScraping } from 'got-scraping';
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

/** The most of a target's answer kept in memory and reported back. */
export const RESPONSE_BODY_LIMIT = 1024 * 1024;

// Connections are reused between deliveries (forwarding sends many to one place). Each socket was
// opened to an address the guard checked, so reusing it never reaches anything unchecked.
const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * Sends one request with got-scraping, exactly as given: no generated browser headers, no
 * decompression, no redirects followed (a 3xx is the answer, so a redirect into a blocked range is
 * never followed), no retries (the caller's schedule decides), TLS verified, and DNS pinned to the
 * address the SSRF guard checked.
 */
export function sendOnce(target: CheckedTarget, req: OutgoingRequest, timeoutMs: number): Promise<TargetResponse> {
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
        const finish = (): void => resolve({ statusCode, body: Buffer.concat(chunks).toString('utf8'), truncated });
        stream.once('response', (res: { statusCode: number }) => {
            statusCode = res.statusCode;
        });
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
            if (truncated) return;
            // An error after the status arrived (the body broke off) still counts as an answer.
            if (statusCode !== 0) return finish();
            if (error.name === 'TimeoutError') reject(new DeliveryError('timeout', 'ECONNABORTED', `timed out after ${timeoutMs} ms`));
            else reject(new DeliveryError('network', error.code, error.message));
        });
    });
}
