import type { Config } from '../config/index.js';
import { exponential } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ForwardBacklog } from '../storage/roles.js';
import { Forwarder } from './forwarder.js';

/**
 * Forwarding limits besides the captures kept in memory (Config.forwardQueue): 64 MB of bodies in
 * memory, and 64 deliveries handed to the delivery thread at once, which keeps 16 of them on the
 * wire (send-worker.ts).
 */
const FORWARD_LIMITS = { maxHeldBytes: 64 * 1024 * 1024, concurrency: 64 };

/** What the forwarder reads captures from and reports to. */
export interface ForwarderDeps {
    config: Config;
    backlog: ForwardBacklog;
    blobs: BlobStore;
    clock: Clock;
    log: Logger;
    metrics: Metrics;
}

/** The background forwarder for `forwardUrl`, if set; the service stops it at shutdown. */
export function createForwarder(deps: ForwarderDeps): Forwarder | undefined {
    const { forwardUrl, replayMaxRetries, replayTimeoutMs } = deps.config.input;
    if (forwardUrl === undefined) return undefined;
    return new Forwarder(
        forwardUrl,
        { backlog: deps.backlog, blobs: deps.blobs, clock: deps.clock, log: deps.log, allowlist: deps.config.env.ssrfAllowlist, metrics: deps.metrics },
        { ...FORWARD_LIMITS, maxHeld: deps.config.forwardQueue, inFlood: deps.config.forwardInFlood, schedule: exponential(replayMaxRetries, 500, 5000), timeoutMs: replayTimeoutMs },
    );
}
