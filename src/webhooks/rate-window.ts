import type { RateLimitSpec } from '../api/webhook.js';

/** What the simulated rate limit decided for one request. */
export interface RateDecision {
    allowed: boolean;
    limit: number;
    /** The window, in seconds. */
    perSeconds: number;
    /** Requests left in the window after this one. */
    remaining: number;
    /** Whole seconds until the window has room again (0 when it has room now). */
    resetSeconds: number;
}

/**
 * A webhook's simulated rate limit (`response.rateLimit`): a sliding window over the times of the
 * requests it let through, kept in a ring of `requests` slots. `hit` is synchronous, so concurrent
 * requests are counted exactly within one process; a refused request takes no slot (a sender that
 * retries too early does not push its own way further out).
 */
export class RateWindow {
    private readonly times: Float64Array;
    /** The slot of the oldest request still counted. */
    private head = 0;
    private count = 0;
    private readonly windowMs: number;

    constructor(readonly spec: Readonly<RateLimitSpec>) {
        this.times = new Float64Array(spec.requests);
        this.windowMs = spec.perSeconds * 1000;
    }

    /** Counts a request at `now` (ms) when the window has room. */
    hit(now: number): RateDecision {
        const size = this.times.length;
        while (this.count > 0 && this.times[this.head]! <= now - this.windowMs) {
            this.head = (this.head + 1) % size;
            this.count--;
        }
        const allowed = this.count < size;
        if (allowed) {
            this.times[(this.head + this.count) % size] = now;
            this.count++;
        }
        const full = this.count === size;
        const frees = full ? this.times[this.head]! + this.windowMs - now : 0;
        return { allowed, limit: size, perSeconds: this.spec.perSeconds, remaining: size - this.count, resetSeconds: Math.max(full ? 1 : 0, Math.ceil(frees / 1000)) };
    }
}

/** The headers a webhook with a simulated rate limit answers with; Retry-After on a refusal. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
    const headers: Record<string, string> = { 'RateLimit-Limit': String(d.limit), 'RateLimit-Remaining': String(d.remaining), 'RateLimit-Reset': String(d.resetSeconds) };
    if (!d.allowed) headers['Retry-After'] = String(d.resetSeconds);
    return headers;
}
