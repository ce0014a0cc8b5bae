import { AppError } from '../errors.js';

// The answers both backends give a GET /logs query that does not run to the end.

/** The error of a query whose caller went away (nobody reads it; it ends the work). */
export function queryCancelled(): AppError {
    return new AppError(499, 'The query was cancelled: its client went away');
}

/** The error of a query stopped by the time limit. */
export function queryTimedOut(timeoutMs: number): AppError {
    return new AppError(504, `The query did not finish within the ${timeoutMs / 1000} s time limit and was stopped; narrow it with more selective filters (webhookId, a time range, a status) and retry`, { timeLimitMs: timeoutMs });
}

/** The refusal of a query beyond `maxInFlight` admitted at once. */
export function queryRefused(maxInFlight: number): AppError {
    return new AppError(503, `Too many queries in progress (at most ${maxInFlight} run or wait at once); retry shortly`, {}, { 'Retry-After': '1' });
}
