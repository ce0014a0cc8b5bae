import type { EnvConfig } from './env.js';
import type { InputConfig } from './input-types.js';
import { memoryBudget, type MemoryBudget } from '../memory/budget.js';

export type { EnvConfig } from './env.js';
export type { InputConfig, SignatureConfig } from './input-types.js';
export { readEnv } from './env.js';
export { parseInput, unknownInputFields, inputSchema } from './input.js';

/** Everything the service is configured with, validated once and frozen. */
export interface Config {
    readonly input: Readonly<InputConfig>;
    readonly env: Readonly<EnvConfig>;
    /** Bodies above this many bytes stream to the key-value store. */
    readonly offloadThreshold: number;
    /** Ingest ceiling per webhook per minute. */
    readonly ingestLimitPerMinute: number;
    /** Bounds on slow senders. */
    readonly timeouts: Readonly<SlowSenderTimeouts>;
    /** How often the service's background chores run and how long a stop waits for each part. */
    readonly timings: Readonly<ServiceTimings>;
    /** Captures whose request to `forwardUrl` waits in memory for its turn; the rest wait in the stored backlog. */
    readonly forwardQueue: number;
    /** How forwards go out while capture is flooded (forwarder.ts): a trickle, so capture keeps the CPU. */
    readonly forwardInFlood: Readonly<FloodPacing>;
    /** The memory budget every path draws on, from ACTOR_MEMORY_MBYTES (src/memory/budget.ts). */
    readonly memory: MemoryBudget;
}

/** Forwards started during a flood: at most `inFlight` at once, and one every `everyMs`. */
export interface FloodPacing {
    inFlight: number;
    everyMs: number;
}

/** How long a slow sender (slowloris) may hold a connection, in ms; tests shorten them. */
export interface SlowSenderTimeouts {
    /** The whole header block (node:http `headersTimeout`); a fresh connection that sends nothing counts too. */
    headersMs: number;
    /** The whole request, body included (node:http `requestTimeout`): 100 MB needs at least ~175 KB/s. */
    requestMs: number;
    /** The longest pause between two pieces of an ingest body before it is cut with 408. */
    bodyIdleMs: number;
    /** How often node:http enforces the first two (`connectionsCheckingInterval`). */
    checkIntervalMs: number;
}

/** The timeouts in production. */
export const DEFAULT_TIMEOUTS: Readonly<SlowSenderTimeouts> = Object.freeze({ headersMs: 20_000, requestMs: 600_000, bodyIdleMs: 30_000, checkIntervalMs: 1_000 });

/** The service's own timings, in ms; tests shorten some. */
export interface ServiceTimings {
    /** An idle keep-alive connection is closed after this: longer than common load balancers' 60 s, so they close first. */
    keepAliveMs: number;
    /** How often expired webhooks are looked for and removed. */
    cleanupMs: number;
    /** How often the webhook store is read again where others change it (StorageBundle.pollWebhooksMs). */
    webhookPollMs: number;
    /** How often the forwarding backlog is read with no commit to wake it, where others add to it (StorageBundle.forwardWakeMs). */
    forwardPollMs: number;
    /** A stop: how long in-flight requests may finish before every connection is closed. */
    drainMs: number;
    /** A stop: how often idle keep-alive connections are closed while requests finish. */
    idleSweepMs: number;
    /** A stop: how long forwards in flight may finish; the rest stay in the backlog for the next start. */
    forwardStopMs: number;
    /** A stop: how long the dataset export may take to send what is waiting in the outbox. */
    exportDrainMs: number;
}

/** The timings in production. */
export const DEFAULT_TIMINGS: Readonly<ServiceTimings> = Object.freeze({
    keepAliveMs: 65_000,
    cleanupMs: 60_000,
    webhookPollMs: 2000,
    forwardPollMs: 2000,
    drainMs: 15_000,
    idleSweepMs: 50,
    forwardStopMs: 5000,
    exportDrainMs: 10_000,
});

/** Test hooks for values that are otherwise fixed. */
export type ConfigOverrides = Partial<Pick<Config, 'offloadThreshold' | 'ingestLimitPerMinute' | 'forwardQueue' | 'forwardInFlood' | 'memory'>> & {
    timeouts?: Partial<SlowSenderTimeouts>;
    timings?: Partial<ServiceTimings>;
};

/** Combines validated input and env into the frozen Config. */
export function makeConfig(input: Readonly<InputConfig>, env: Readonly<EnvConfig>, overrides: ConfigOverrides = {}): Config {
    return Object.freeze({
        timeouts: Object.freeze({ ...DEFAULT_TIMEOUTS, ...overrides.timeouts }),
        timings: Object.freeze({ ...DEFAULT_TIMINGS, ...overrides.timings }),
        input,
        env: Object.freeze(env),
        offloadThreshold: overrides.offloadThreshold ?? 5 * 1024 * 1024,
        ingestLimitPerMinute: overrides.ingestLimitPerMinute ?? env.ingestLimitPerMinute ?? 10_000,
        forwardQueue: overrides.forwardQueue ?? 10_000,
        forwardInFlood: Object.freeze(overrides.forwardInFlood ?? { inFlight: 1, everyMs: 100 }),
        memory: overrides.memory ?? memoryBudget(env.memoryMbytes),
    });
}
