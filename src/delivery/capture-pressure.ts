import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * How hard the capture thread is working: `idle`, `busy` (its event-loop utilization above
 * `busyAbove`), or `flooded` (above `floodAbove` while captures keep arriving; it stays flooded until
 * the utilization falls under `floodBelow` or no capture arrived for `quietToEnd` intervals).
 */
export type PressureLevel = 'idle' | 'busy' | 'flooded';

export interface PressureOptions {
    intervalMs: number;
    busyAbove: number;
    floodAbove: number;
    floodBelow: number;
    quietToEnd: number;
    /** A count that grows with every capture (only a change matters). */
    activity: () => number;
    /** Called when the level changes. */
    onChange?: (level: PressureLevel) => void;
}

/**
 * The capture thread's pressure: its event-loop utilization over the last interval, sampled on a
 * timer that does not keep the process alive.
 */
export class CapturePressure {
    level: PressureLevel = 'idle';
    private last: EventLoopUtilization = performance.eventLoopUtilization();
    private lastActivity: number;
    /** Intervals in a row without a capture. */
    private quiet = 0;
    private readonly timer: NodeJS.Timeout;

    constructor(private readonly options: PressureOptions) {
        this.lastActivity = options.activity();
        this.timer = setInterval(() => this.sample(), options.intervalMs);
        this.timer.unref();
    }

    get flooded(): boolean {
        return this.level === 'flooded';
    }

    stop(): void {
        clearInterval(this.timer);
    }

    private sample(): void {
        const { busyAbove, floodAbove, floodBelow, quietToEnd, activity, onChange } = this.options;
        const now = performance.eventLoopUtilization();
        const used = performance.eventLoopUtilization(now, this.last).utilization;
        this.last = now;
        const count = activity();
        const capturing = count !== this.lastActivity;
        this.lastActivity = count;
        this.quiet = capturing ? 0 : this.quiet + 1;
        const flooded = this.level === 'flooded' ? used > floodBelow && this.quiet < quietToEnd : capturing && used > floodAbove;
        const level: PressureLevel = flooded ? 'flooded' : used > busyAbove ? 'busy' : 'idle';
        if (level === this.level) return;
        this.level = level;
        onChange?.(level);
    }
}
