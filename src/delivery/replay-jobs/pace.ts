import type { Clock } from '../../lib/clock.js';

/**
 * The token bucket of a job: `perSecond` tokens a second, holding at most a twentieth of a second's
 * worth (at least one). A start takes a token, waiting for one when none is left. The small reserve
 * lets a start that a late timer or a busy slot held back be made up, so the rate over a job holds;
 * it is too small to be a burst a receiver would notice.
 */
export class Pace {
    private readonly intervalMs: number;
    private readonly reserveMs: number;
    /** When (monotonic ms) the next token is due. */
    private next = -Infinity;

    constructor(perSecond: number, private readonly clock: Clock) {
        this.intervalMs = 900 / perSecond;
        this.reserveMs = Math.max(0, Math.ceil(perSecond / 20) - 1) * this.intervalMs;
    }

    /** Resolves when the next start may go. */
    async take(): Promise<void> {
        const now = this.clock.monotonic();
        // Tokens saved while idle count up to the reserve; the schedule moves from the ideal time, not
        // from the moment a timer happened to fire, so timer lateness never adds up.
        const at = Math.max(this.next, now - this.reserveMs);
        this.next = at + this.intervalMs;
        if (at > now) await this.clock.sleep(at - now);
    }
}
