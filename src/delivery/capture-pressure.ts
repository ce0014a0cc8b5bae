import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * Whether this thread (the capture thread) is busy: its event-loop utilization over the last
 * interval, sampled on a timer that does not keep the process alive.
 */
export class CapturePressure {
    /** The last interval's utilization was above the threshold. */
    busy = false;
    private last: EventLoopUtilization = performance.eventLoopUtilization();
    private readonly timer: NodeJS.Timeout;

    constructor(intervalMs: number, threshold: number) {
        this.timer = setInterval(() => {
            const now = performance.eventLoopUtilization();
            this.busy = performance.eventLoopUtilization(now, this.last).utilization > threshold;
            this.last = now;
        }, intervalMs);
        this.timer.unref();
    }

    stop(): void {
        clearInterval(this.timer);
    }
}
