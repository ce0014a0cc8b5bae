// Node-free, so the dashboard's build imports these types from here instead of writing them again.

/** One answer of a webhook (a `sequence` step, or the base of its `response`). */
export interface AnswerSpec {
    statusCode?: number;
    /** A string goes out as is; an object or array as JSON. */
    body?: string | object;
    headers?: Record<string, string>;
    delayMs?: number;
}

/** A webhook's own answer and fault injection (DECISIONS.md "Webhooks you manage"). */
export interface ResponseSpec extends AnswerSpec {
    sequence?: AnswerSpec[];
    failureRate?: number;
    failureStatusCode?: number;
    retryAfterSeconds?: number;
}
