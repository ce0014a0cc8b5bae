/** How many attempts, and how long to wait before attempt n+1 (n counts from 1). */
export interface RetrySchedule {
    attempts: number;
    backoffMs(attempt: number): number;
}

/** Exponential backoff from `baseMs`, doubling, capped at `maxMs`. */
export function exponential(attempts: number, baseMs: number, maxMs: number): RetrySchedule {
    return { attempts, backoffMs: (n) => Math.min(maxMs, baseMs * 2 ** (n - 1)) };
}
