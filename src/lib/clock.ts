/** Source of time, injected so that expiry, windows and delays are testable without sleeping. */
export interface Clock {
    /** Milliseconds since the epoch. */
    now(): number;
    /** High-resolution monotonic milliseconds, for durations. */
    monotonic(): number;
    /** Resolves after `ms`; `signal` ends the wait early. */
    sleep(ms: number): Promise<void>;
}

/** The real clock. */
export const systemClock: Clock = {
    now: () => Date.now(),
    monotonic: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref?.()),
};
