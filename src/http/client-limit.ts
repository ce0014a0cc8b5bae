import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { clientRateKey } from '../lib/ip.js';
import { RateLimiter, rateHeaders, type RateDecision } from './rate-limit.js';

/**
 * The one per-client budget (`rateLimitPerMinute` per 60 s), built once and shared by every
 * management route and by ingest's refusals, so that a key guessed on `/webhook/*` and on `/logs`
 * costs from one allowance. IPv6 clients count by their /64 (see clientRateKey).
 */
export class ClientLimit {
    private readonly limiter: RateLimiter;

    constructor(perMinute: number, clock: Clock) {
        this.limiter = new RateLimiter(perMinute, 60_000, clock);
    }

    /** Whether the limit counts at all (rateLimitPerMinute 0 turns it off). */
    get enabled(): boolean {
        return this.limiter.enabled;
    }

    /** Counts one request of the client. */
    hit(clientIp: string): RateDecision {
        return this.limiter.hit(clientRateKey(clientIp));
    }

    /** Whether the client may make one more request, without counting one. */
    peek(clientIp: string): RateDecision {
        return this.limiter.peek(clientRateKey(clientIp));
    }
}

/**
 * The 429 of a client over its budget. It depends on the client's count only, never on the
 * request, so a right key and a wrong one get the same answer.
 */
export function clientLimitError(decision: RateDecision, extra: Record<string, unknown> = {}): AppError {
    return new AppError(429, `Max ${decision.limit} requests per 60s`, extra, rateHeaders(decision));
}
