import type { Clock } from '../../src/lib/clock.js';

/** A clock whose wall time the test moves by hand; durations and sleeps stay real. */
export class ManualClock implements Clock {
    constructor(public time = Date.parse('2026-01-01T00:00:00.000Z')) {}

    now(): number {
        return this.time;
    }

    monotonic(): number {
        return performance.now();
    }

    sleep(ms: number): Promise<void> {
        return new Promise((resolve) => setTimeout(resolve, ms));
    }

    /** Moves wall time forward. */
    advance(ms: number): void {
        this.time += ms;
    }
}
