import { AppError } from '../../errors.js';
import { clientLimitError, type ClientLimit } from '../../http/client-limit.js';
import type { Step } from '../context.js';

/**
 * Before steps 2–3: a client that has used up its management allowance (`rateLimitPerMinute`, the
 * budget its refused sends count against) is answered 429 before its address or key is looked at,
 * whatever key it sends. Accepted sends never count here: senders have their own per-webhook limit.
 */
export function createClientGate(limit: ClientLimit): Step {
    if (!limit.enabled) return () => undefined;
    return (ctx) => {
        const decision = limit.peek(ctx.clientIp);
        if (!decision.allowed) throw clientLimitError(decision, { retryAfterSeconds: decision.retryAfter });
    };
}

/** Runs `step`; each refusal it throws (401 key, 403 address) costs the client one request of its allowance. */
export function countRefusals(limit: ClientLimit, step: Step): Step {
    if (!limit.enabled) return step;
    const count = (error: unknown, clientIp: string): never => {
        if (error instanceof AppError && (error.status === 401 || error.status === 403)) limit.hit(clientIp);
        throw error;
    };
    return (ctx) => {
        try {
            const pending = step(ctx);
            return pending?.catch((error: unknown) => count(error, ctx.clientIp));
        } catch (error) {
            return count(error, ctx.clientIp);
        }
    };
}
