import type http from 'node:http';
import type { IncomingMessage } from 'node:http';
import { describe, FatalError } from './errors.js';
import { headerLines, readSome, request } from './http.js';
import { deliveryHeaders, deliveryTarget, type Capture } from './request.js';
import { networkMessage, type ServiceClient } from './service.js';
import { backoffMs, sleep } from './time.js';

/** What became of one capture. */
export interface Outcome {
    /** The local URL it went to. */
    url: string;
    /** Path and query as sent. */
    path: string;
    /** The local status; null when the request could not be made at all (`error` says why). */
    status: number | null;
    durationMs: number;
    attempts: number;
    error: string | null;
    /** The capture was deleted on the service before its body could be read: nothing was sent. */
    gone?: boolean;
    /** With --verbose: the answer's header lines and up to VERBOSE_BODY bytes of its body. */
    answer?: { headers: string[]; body: Buffer; size: number };
}

/** Tells the developer once per outage that a party is down, and once that it is back. */
export interface Outages {
    down(party: 'local' | 'service', url: string, reason: string): void;
    up(party: 'local' | 'service'): void;
}

/** What a delivery needs. */
export interface DeliverDeps {
    service: ServiceClient;
    local: URL;
    agent: http.Agent;
    timeoutMs: number;
    verbose: boolean;
    outages: Outages;
    /** Aborted when the command stops: the delivery in flight is given up (and repeated after a restart). */
    signal: AbortSignal;
}

/** The body bytes of the local answer --verbose shows. */
const VERBOSE_BODY = 64 * 1024;
/** Errors Node raises before anything is sent: a header or method it cannot put on the wire. Retrying cannot help. */
const UNSENDABLE = new Set(['ERR_INVALID_CHAR', 'ERR_HTTP_INVALID_HEADER_VALUE', 'ERR_INVALID_HTTP_TOKEN', 'ERR_UNESCAPED_CHARACTERS', 'ERR_INVALID_ARG_VALUE']);

/**
 * Delivers one capture to the local server: the captured method, the joined path and query, the
 * captured headers (deliveryHeaders) plus X-Webhook-Debugger-Event/-Webhook, and the body byte-exact,
 * streamed from GET /logs/:id/payload into the local request. A local server that refuses, resets or
 * stays idle past the timeout is retried with backoff until it answers; a service that cannot serve
 * the body is waited for the same way. Any answer, 4xx/5xx included, ends it. Rejects only when
 * stopped (`signal`) or when the service refuses the key (FatalError).
 */
export async function deliver(capture: Capture, deps: DeliverDeps): Promise<Outcome> {
    const target = deliveryTarget(deps.local, capture.requestUrl);
    const base = { url: target.url, path: target.path };
    if (capture.method === 'CONNECT') return { ...base, status: null, durationMs: 0, attempts: 1, error: 'a CONNECT request cannot be delivered' };
    const headers = deliveryHeaders(capture.headers);
    headers['X-Webhook-Debugger-Event'] = capture.id;
    headers['X-Webhook-Debugger-Webhook'] = capture.webhookId;
    for (let attempt = 1; ; attempt++) {
        if (attempt > 1) await sleep(backoffMs(attempt - 1), deps.signal);
        let body: IncomingMessage | Buffer | undefined;
        if (capture.rawBody !== undefined) {
            // The frame carried the payload's bytes (`rawBodies=true`, bodies up to 64 KB).
            body = Buffer.from(capture.rawBody, 'base64');
            if (body.length > 0) headers['content-length'] = String(body.length);
            else body = undefined;
        } else if (capture.size > 0) {
            const payload = await openPayload(capture.id, deps);
            if (payload === 'gone') return { ...base, status: null, durationMs: 0, attempts: attempt, error: 'the capture was deleted on the service', gone: true };
            if (payload === 'retry') continue;
            body = payload;
            headers['content-length'] = payload.headers['content-length'] ?? String(capture.size);
        }
        let bodyFailed = false;
        if (body !== undefined && !Buffer.isBuffer(body)) body.on('error', () => (bodyFailed = true));
        const started = performance.now();
        try {
            const res = await request(new URL(target.url), { method: capture.method, path: target.path, headers, body, agent: deps.agent, timeoutMs: deps.timeoutMs, signal: deps.signal });
            res.setTimeout(deps.timeoutMs, () => res.destroy(new Error(`the answer's body stayed idle for ${deps.timeoutMs} ms`)));
            const read = await readSome(res, deps.verbose ? VERBOSE_BODY : 0);
            const durationMs = Math.round((performance.now() - started) * 10) / 10;
            deps.outages.up('local');
            const answer = deps.verbose ? { answer: { headers: headerLines(res), body: read.bytes, size: read.size } } : {};
            return { ...base, status: res.statusCode ?? null, durationMs, attempts: attempt, error: null, ...answer };
        } catch (error) {
            if (body !== undefined && !Buffer.isBuffer(body)) body.destroy();
            if (deps.signal.aborted) throw error;
            const code = (error as { code?: unknown }).code;
            if (typeof code === 'string' && UNSENDABLE.has(code)) return { ...base, status: null, durationMs: 0, attempts: attempt, error: describe(error) };
            if (bodyFailed) deps.outages.down('service', deps.service.display, 'the body could not be read');
            else deps.outages.down('local', target.url, networkMessage(error));
        }
    }
}

/** The capture's body from GET /logs/:id/payload; 'gone' when the capture was deleted, 'retry' while the service cannot serve it. */
async function openPayload(id: string, deps: DeliverDeps): Promise<IncomingMessage | 'gone' | 'retry'> {
    let res: IncomingMessage;
    try {
        res = await deps.service.open('GET', `/logs/${encodeURIComponent(id)}/payload`, '', { signal: deps.signal });
    } catch (error) {
        if (deps.signal.aborted) throw error;
        deps.outages.down('service', deps.service.display, (error as Error).message);
        return 'retry';
    }
    const status = res.statusCode ?? 0;
    if (status === 200) {
        deps.outages.up('service');
        return res;
    }
    res.resume();
    if (status === 404) return 'gone';
    if (status === 401 || status === 403) throw new FatalError(`the service refused the key (${status}) while reading the body of ${id}`);
    deps.outages.down('service', deps.service.display, `GET /logs/${id}/payload answered ${status}`);
    return 'retry';
}
