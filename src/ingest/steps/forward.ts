import { randomBytes } from 'node:crypto';
import { replayableHeaders } from '../../delivery/headers.js';
import { Forwarder } from '../../delivery/forwarder.js';
import { exponential } from '../../lib/backoff.js';
import { AppError } from '../../errors.js';
import { setHeader } from '../../lib/headers.js';
import type { IngestDeps, Step } from '../context.js';

/** The loop marker: every service that forwards a request appends its instance id here. */
export const LOOP_HEADER = 'X-Webhook-Debugger-Forwarded-By';
const LOOP_HEADER_LOWER = LOOP_HEADER.toLowerCase();

/**
 * Forwarding limits besides the queue length (Config.forwardQueue): 64 MB of bodies waiting, and 64
 * deliveries handed to the delivery thread at once, which keeps 16 of them on the wire (send-worker.ts).
 */
const FORWARD_LIMITS = { maxQueuedBytes: 64 * 1024 * 1024, concurrency: 64 };

/** The background forwarder for `forwardUrl`, if set; the service stops it at shutdown. */
export function createForwarder(deps: Pick<IngestDeps, 'config' | 'store' | 'blobs' | 'clock' | 'log' | 'metrics'>): Forwarder | undefined {
    const { forwardUrl, replayMaxRetries, replayTimeoutMs } = deps.config.input;
    if (forwardUrl === undefined) return undefined;
    return new Forwarder(
        forwardUrl,
        { store: deps.store, blobs: deps.blobs, clock: deps.clock, log: deps.log, allowlist: deps.config.env.ssrfAllowlist, metrics: deps.metrics },
        { ...FORWARD_LIMITS, maxQueue: deps.config.forwardQueue, schedule: exponential(replayMaxRetries, 500, 5000), timeoutMs: replayTimeoutMs },
    );
}

/**
 * Step 10: refuses a request that this very instance forwarded (a loop through `forwardUrl`) with
 * 422, which is stored; otherwise, with `forwardUrl` set, hands the capture to the background
 * forwarder and moves on: the sender's answer never waits for the target.
 */
export function createForward(deps: IngestDeps): Step {
    // Unique per running service, so two instances may forward to each other; a chain A → B → A is
    // caught too, because each hop appends its id to the marker.
    const instanceId = randomBytes(9).toString('base64url');
    const { forwarder } = deps;
    // Without forwardUrl this instance never sends its marker, so no request can carry it.
    if (!forwarder) return () => undefined;
    return (ctx) => {
        const marker = ctx.req.headers[LOOP_HEADER_LOWER];
        const hops = typeof marker === 'string' ? marker.split(',').map((s) => s.trim()) : [];
        if (hops.includes(instanceId)) {
            throw new AppError(422, 'Forwarding loop detected: this request was forwarded by this service (forwardUrl points back at it)');
        }
        const { headers } = replayableHeaders(ctx.req.headers);
        setHeader(headers, LOOP_HEADER, [...hops.filter(Boolean), instanceId].join(', '));
        const method = (ctx.req.method ?? 'GET').toUpperCase();
        const { raw, blobKey, size } = ctx.body;
        if (blobKey !== undefined) {
            headers['Content-Length'] = String(size);
            forwarder.enqueue({ eventId: ctx.logId, method, headers, blob: { key: blobKey, size } });
        } else if (raw !== undefined && raw.length > 0 && method !== 'HEAD') {
            // The bytes as received (before any redactBodyPaths, which only shapes what is stored).
            forwarder.enqueue({ eventId: ctx.logId, method, headers, body: raw });
        } else {
            forwarder.enqueue({ eventId: ctx.logId, method, headers });
        }
    };
}
