import type { Clock } from '../../src/lib/clock.js';

interface Sleeper {
    until: number;
    wake: () => void;
}

/**
 * A clock the test drives. Wall time moves only by `advance`; `sleep` is virtual: it resolves when
 * the test advances the clock past its deadline, never by real waiting. `monotonic` is real time plus
 * everything advanced, so measured durations stay truthful and an advance counts as elapsed time.
 */
export class ManualClock implements Clock {
    private advanced = 0;
    private sleepers: Sleeper[] = [];
    private waiters: { count: number; wake: () => void }[] = [];

    constructor(public time = Date.parse('2026-01-01T00:00:00.000Z')) {}

    now(): number {
        return this.time;
    }

    monotonic(): number {
        return performance.now() + this.advanced;
    }

    sleep(ms: number): Promise<void> {
        if (!(ms > 0)) return Promise.resolve();
        return new Promise<void>((wake) => {
            this.sleepers.push({ until: this.time + ms, wake });
            this.notifyWaiters();
        });
    }

    /** Sleeps that have not resolved yet. */
    get pendingSleeps(): number {
        return this.sleepers.length;
    }

    /** Resolves once at least `count` sleeps are pending, so a test advances only after the code under test went to sleep. */
    whenSleeping(count = 1): Promise<void> {
        if (this.sleepers.length >= count) return Promise.resolve();
        return new Promise<void>((wake) => this.waiters.push({ count, wake }));
    }

    /** Moves wall (and monotonic) time forward and wakes, in deadline order, every sleep that is now due. */
    advance(ms: number): void {
        this.time += ms;
        this.advanced += ms;
        const due = this.sleepers.filter((s) => s.until <= this.time).sort((a, b) => a.until - b.until);
        this.sleepers = this.sleepers.filter((s) => s.until > this.time);
        for (const s of due) s.wake();
    }

    private notifyWaiters(): void {
        const ready = this.waiters.filter((w) => this.sleepers.length >= w.count);
        this.waiters = this.waiters.filter((w) => this.sleepers.length < w.count);
        for (const w of ready) w.wake();
    }
}
