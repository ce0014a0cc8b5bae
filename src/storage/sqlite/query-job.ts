import { AppError } from '../../errors.js';
import { queryCancelled, queryTimedOut } from '../query-errors.js';

/**
 * One query in the pool, from admission to answer: its time limit and its caller's AbortSignal.
 * Whichever comes first stops it once: listeners run (the pool cancels the worker requests still
 * out, a place in the scan line is given up), and the caller is answered at once with the reason.
 */
export class QueryJob {
    /** Why the query was stopped, once it was. */
    stopped: AppError | undefined;
    private listeners: ((reason: AppError) => void)[] = [];
    private readonly timer: NodeJS.Timeout | undefined;
    private rejectRace: ((reason: AppError) => void) | undefined;
    private readonly onAbort = (): void => this.stop(queryCancelled());

    constructor(timeoutMs: number, private readonly signal: AbortSignal | undefined, onStopped: (reason: AppError) => void) {
        this.listeners.push(onStopped);
        if (timeoutMs > 0) {
            this.timer = setTimeout(() => this.stop(queryTimedOut(timeoutMs)), timeoutMs);
            this.timer.unref();
        }
        signal?.addEventListener('abort', this.onAbort, { once: true });
    }

    /** Stops the query (the first reason wins). */
    stop(reason: AppError): void {
        if (this.stopped) return;
        this.stopped = reason;
        for (const listener of this.listeners) listener(reason);
        this.rejectRace?.(reason);
    }

    /** Runs `listener` when the query is stopped (at once if it already was). */
    onStop(listener: (reason: AppError) => void): void {
        if (this.stopped) listener(this.stopped);
        else this.listeners.push(listener);
    }

    /** The outcome of `work`, or the stop reason as soon as the query is stopped. */
    race<T>(work: Promise<T>): Promise<T> {
        // Work that fails after the caller was answered has nobody left to tell.
        work.catch(() => undefined);
        return new Promise<T>((resolve, reject) => {
            this.rejectRace = reject;
            if (this.stopped) reject(this.stopped);
            work.then(resolve, reject);
        });
    }

    /** Clears the timer and the abort listener once the query is answered. */
    dispose(): void {
        if (this.timer) clearTimeout(this.timer);
        this.signal?.removeEventListener('abort', this.onAbort);
        this.listeners = [];
    }
}
