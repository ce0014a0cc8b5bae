import type { RetrySchedule } from '../lib/backoff.js';
import type { Clock } from '../lib/clock.js';
import { DeliveryError } from './send.js';

/** What a retried delivery came to: the value, or every attempt's failure. */
export type RetryOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; errors: DeliveryError[]; attempts: number };

/**
 * Runs `attempt` until it answers or the schedule is spent. Only a DeliveryError (no answer: network
 * error or timeout) is retried; any other error is a bug or a refusal and propagates at once.
 */
export async function withRetries<T>(schedule: RetrySchedule, clock: Clock, attempt: (n: number) => Promise<T>): Promise<RetryOutcome<T>> {
    const errors: DeliveryError[] = [];
    for (let n = 1; n <= schedule.attempts; n++) {
        try {
            return { ok: true, value: await attempt(n), attempts: n };
        } catch (error) {
            if (!(error instanceof DeliveryError)) throw error;
            errors.push(error);
            if (n < schedule.attempts) await clock.sleep(schedule.backoffMs(n));
        }
    }
    return { ok: false, errors, attempts: schedule.attempts };
}
