/** Retry backoff for the local server and the service alike: 250 ms doubling, at most 5 s, forever. */
export const backoffMs = (attempt: number): number => Math.min(5_000, 250 * 2 ** Math.min(Math.max(attempt, 1) - 1, 5));

/** Waits `ms`; rejects with the abort reason as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason as Error);
        const stop = (): void => {
            clearTimeout(timer);
            reject(signal.reason as Error);
        };
        const timer = setTimeout(() => {
            signal.removeEventListener('abort', stop);
            resolve();
        }, ms);
        signal.addEventListener('abort', stop, { once: true });
    });
}
