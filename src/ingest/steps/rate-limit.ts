import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { RateLimiter, rateHeaders } from '../../http/rate-limit.js';
import type { Step } from '../context.js';

/** Step 4: a per-webhook ceiling per minute, checked before the body is read. */
export function createIngestRateLimit(perMinute: number, clock: Clock): Step {
    const limiter = new RateLimiter(perMinute, 60_000, clock);
    if (perMinute <= 0) return () => undefined;
    return (ctx) => {
        const decision = limiter.hit(ctx.webhookId);
        // Carried by the answer (and stored with it) rather than set on the response one by one.
        ctx.extraHeaders = rateHeaders(decision);
        if (!decision.allowed) {
            throw new AppError(429, `Max ${perMinute} requests per minute per webhook exceeded`, { retryAfterSeconds: decision.retryAfter }, ctx.extraHeaders);
        }
    };
}
