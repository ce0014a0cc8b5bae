import type { Clock } from '../../lib/clock.js';
import type { Step } from '../context.js';

/**
 * Step 11: the response delay holds the answer after the event is committed, so processingTime
 * excludes it and the capture is visible (list, live feed) while the sender waits. A request
 * stopped by an earlier step (413, 400, 422) is answered without the delay. A webhook's own
 * answer sets its delay (`delayMs`) for that webhook only; otherwise `responseDelayMs` applies.
 */
export function createDelayResponse(ms: number, clock: Clock): Step {
    const hold = ms > 0 ? (): Promise<void> => clock.sleep(ms) : undefined;
    return (ctx) => {
        const own = ctx.picked?.answer.delayMs;
        if (own === undefined) {
            if (hold) ctx.beforeAnswer = hold;
        } else if (own > 0) {
            ctx.beforeAnswer = () => clock.sleep(own);
        }
    };
}
