import type { Clock } from '../../lib/clock.js';
import type { Step } from '../context.js';

/**
 * Step 11: `responseDelayMs` holds the answer after the event is committed, so processingTime
 * excludes it and the capture is visible (list, live feed) while the sender waits. A request
 * stopped by an earlier step (413, 400, 422) is answered without the delay.
 */
export function createDelayResponse(ms: number, clock: Clock): Step {
    if (ms <= 0) return () => undefined;
    const hold = (): Promise<void> => clock.sleep(ms);
    return (ctx) => {
        ctx.beforeAnswer = hold;
    };
}
