import type { Clock } from '../../lib/clock.js';

/** Lost time a job makes up at most: a stall (a busy machine, a slow target) of up to this much is sent later. */
const DEBT_MS = 5000;
/** How much faster than its rate a job may go while it makes up lost time. */
const CATCH_UP = 1.1;

/**
 * The pace of a job: `perSecond` starts a second on a fixed schedule, never ahead of it. A start
 * held back (a late timer, a busy slot, a stalled process) leaves the schedule behind; up to 5 s of
 * it is made up, at most 10 % faster than the rate (with a reserve of a twentieth of a second's
 * worth, so one late timer is made up at once). So the rate over a job holds on a machine that
 * stalls now and then, and a receiver never sees more than the rate over the job, nor much more
 * than it in any second.
 */
export class Pace {
    private readonly intervalMs: number;
    private readonly peakIntervalMs: number;
    private readonly reserveMs: number;
    /** When (monotonic ms) the next start is due on the schedule; undefined before the first. */
    private due: number | undefined;
    /** The earliest time (monotonic ms) the next start keeps within the catch-up rate, less the reserve. */
    private peak = -Infinity;

    constructor(perSecond: number, private readonly clock: Clock) {
        this.intervalMs = 1000 / perSecond;
        this.peakIntervalMs = this.intervalMs / CATCH_UP;
        this.reserveMs = Math.max(0, Math.ceil(perSecond / 20) - 1) * this.peakIntervalMs;
    }

    /** Resolves when the next start may go. */
    async take(): Promise<void> {
        const now = this.clock.monotonic();
        const due = this.due ?? now;
        const at = Math.max(due, this.peak - this.reserveMs);
        const start = Math.max(at, now);
        // The schedule moves by the interval from where it was, not from when the start went, so
        // lateness is made up; beyond DEBT_MS behind, the rest is given up.
        this.due = Math.max(due, start - DEBT_MS) + this.intervalMs;
        this.peak = Math.max(this.peak, start) + this.peakIntervalMs;
        if (at > now) await this.clock.sleep(at - now);
    }
}
