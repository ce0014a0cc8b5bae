import { Forwarder, forwardedBy, forwardJob } from '../../delivery/forwarder.js';
import { exponential } from '../../lib/backoff.js';
import { AppError } from '../../errors.js';
import type { ForwardBacklog } from '../../storage/roles.js';
import type { IngestDeps, Step } from '../context.js';

/**
 * Forwarding limits besides the captures kept in memory (Config.forwardQueue): 64 MB of bodies in
 * memory, and 64 deliveries handed to the delivery thread at once, which keeps 16 of them on the
 * wire (send-worker.ts).
 */
const FORWARD_LIMITS = { maxHeldBytes: 64 * 1024 * 1024, concurrency: 64 };

/** The background forwarder for `forwardUrl`, if set; the service stops it at shutdown. */
export function createForwarder(deps: Pick<IngestDeps, 'config' | 'blobs' | 'clock' | 'log' | 'metrics'> & { backlog: ForwardBacklog }): Forwarder | undefined {
    const { forwardUrl, replayMaxRetries, replayTimeoutMs } = deps.config.input;
    if (forwardUrl === undefined) return undefined;
    return new Forwarder(
        forwardUrl,
        { backlog: deps.backlog, blobs: deps.blobs, clock: deps.clock, log: deps.log, allowlist: deps.config.env.ssrfAllowlist, metrics: deps.metrics },
        { ...FORWARD_LIMITS, maxHeld: deps.config.forwardQueue, inFlood: deps.config.forwardInFlood, schedule: exponential(replayMaxRetries, 500, 5000), timeoutMs: replayTimeoutMs },
    );
}

/**
 * Step 10: refuses a request that this very instance forwarded (a loop through `forwardUrl`) with
 * 422, which is stored; otherwise, with `forwardUrl` set, prepares the request to forward. The
 * capture joins the forwarding backlog in the commit that stores it and goes out in the background:
 * the sender's answer never waits for the target.
 */
export function createForward(deps: IngestDeps): Step {
    const { forwarder } = deps;
    // Without forwardUrl this instance never sends its marker, so no request can carry it. The
    // marker is unique per running service, so two instances may forward to each other; a chain
    // A → B → A is caught too, because each hop appends its id.
    if (!forwarder) return () => undefined;
    return (ctx) => {
        if (forwardedBy(ctx.req.headers).includes(forwarder.instanceId)) {
            throw new AppError(422, 'Forwarding loop detected: this request was forwarded by this service (forwardUrl points back at it)');
        }
        // The bytes as received (before any redactBodyPaths, which only shapes what is stored).
        ctx.forward = forwardJob(ctx.logId, (ctx.req.method ?? 'GET').toUpperCase(), ctx.req.headers, ctx.body, forwarder.instanceId);
    };
}
