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

/** How many distinct keys one window tracks before new keys share the overflow allowance. */
export const DEFAULT_MAX_KEYS = 100_000;

/** Tuning of a limiter; tests set a small cap. */
export interface RateLimiterOptions {
    maxKeys?: number;
}

/**
 * A fixed-window counter per key. A limit of 0 disables it (and tracks nothing).
 *
 * Memory is bounded: at most `maxKeys` keys are tracked per window (about 100 bytes each) and every
 * counter is dropped when the window ends. A key already tracked is never evicted within its window,
 * so a client over its limit cannot win a fresh allowance by flooding the table with new keys
 * (for IPv6 the caller keys by /64, see clientRateKey). Once the table is full, every key it does
 * not hold shares one overflow allowance of `limit` until the window resets: under such a flood
 * newcomers are throttled together, and clients seen before it keep their own counts.
 */
export class RateLimiter {
    private windowStart = Number.NEGATIVE_INFINITY;
    private counts = new Map<string, number>();
    private overflow = 0;
    private readonly maxKeys: number;

    constructor(private readonly limit: number, private readonly windowMs: number, private readonly clock: Clock, options: RateLimiterOptions = {}) {
        this.maxKeys = Math.max(1, options.maxKeys ?? DEFAULT_MAX_KEYS);
    }

    /** Counts one request for `key`. */
    hit(key: string): RateDecision {
        const timing = this.roll();
        if (this.limit <= 0) return { allowed: true, limit: this.limit, remaining: 0, ...timing };
        const used = this.count(key);
        return { allowed: used <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - used), ...timing };
    }

    /** Whether one more request for `key` would be allowed, without counting it. */
    peek(key: string): RateDecision {
        const timing = this.roll();
        if (this.limit <= 0) return { allowed: true, limit: this.limit, remaining: 0, ...timing };
        const used = this.counts.get(key) ?? (this.counts.size < this.maxKeys ? 0 : this.overflow);
        return { allowed: used < this.limit, limit: this.limit, remaining: Math.max(0, this.limit - used), ...timing };
    }

    /** Whether the limiter counts at all. */
    get enabled(): boolean {
        return this.limit > 0;
    }

    /** Keys tracked in the current window (at most maxKeys). */
    get trackedKeys(): number {
        return this.counts.size;
    }

    /** Starts a new window when the current one has ended; the timing of the current one. */
    private roll(): { reset: number; retryAfter: number } {
        const now = this.clock.now();
        if (now - this.windowStart >= this.windowMs) {
            // A new window: drop every old counter at once.
            this.windowStart = now;
            this.counts = new Map();
            this.overflow = 0;
        }
        const resetMs = this.windowStart + this.windowMs;
        return { reset: Math.ceil(resetMs / 1000), retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)) };
    }

    private count(key: string): number {
        const known = this.counts.get(key);
        if (known !== undefined) {
            this.counts.set(key, known + 1);
            return known + 1;
        }
        if (this.counts.size < this.maxKeys) {
            this.counts.set(key, 1);
            return 1;
        }
        return ++this.overflow;
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
