import type { ServerResponse } from 'node:http';
import type { Clock } from '../lib/clock.js';

/** The outcome of counting one request. */
export interface RateDecision {
    allowed: boolean;
    limit: number;
    remaining: number;
    /** Unix seconds when the window resets. */
    reset: number;
    /** Seconds until the reset. */
    retryAfter: number;
}

/** A fixed-window counter per key. A limit of 0 disables it. */
export class RateLimiter {
    private windowStart = 0;
    private counts = new Map<string, number>();

    constructor(private readonly limit: number, private readonly windowMs: number, private readonly clock: Clock) {}

    /** Counts one request for `key`. */
    hit(key: string): RateDecision {
        const now = this.clock.now();
        if (now - this.windowStart >= this.windowMs) {
            // A new window: drop every old counter at once, so memory stays bounded by one window's keys.
            this.windowStart = now;
            this.counts = new Map();
        }
        const used = (this.counts.get(key) ?? 0) + 1;
        this.counts.set(key, used);
        const resetMs = this.windowStart + this.windowMs;
        const unlimited = this.limit <= 0;
        return {
            allowed: unlimited || used <= this.limit,
            limit: this.limit,
            remaining: unlimited ? 0 : Math.max(0, this.limit - used),
            reset: Math.ceil(resetMs / 1000),
            retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
        };
    }

    /** Whether the limiter counts at all. */
    get enabled(): boolean {
        return this.limit > 0;
    }
}

/** X-RateLimit-* (and Retry-After when refused) for a decision. */
export function rateHeaders(d: RateDecision): Record<string, string> {
    const headers: Record<string, string> = {
        'X-RateLimit-Limit': String(d.limit),
        'X-RateLimit-Remaining': String(d.remaining),
        'X-RateLimit-Reset': String(d.reset),
    };
    if (!d.allowed) headers['Retry-After'] = String(d.retryAfter);
    return headers;
}

/** Attaches the rate-limit headers of a decision to a response. */
export function setRateHeaders(res: ServerResponse, d: RateDecision): void {
    for (const [name, value] of Object.entries(rateHeaders(d))) res.setHeader(name, value);
}
