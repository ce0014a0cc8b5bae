import type { AnswerSpec, ResponseSpec } from '../storage/types.js';

/** What one request to a webhook with its own answer gets. */
export interface AnswerPick {
    /** The answer (a sequence step over the base fields); unset fields fall back to the run's defaults. */
    answer: Readonly<AnswerSpec>;
    /** Whether fault injection (`failureRate`) chose a failure for this request. */
    failed: boolean;
    /** The status of an injected failure. */
    failureStatusCode: number;
    /** Added as Retry-After to a 429 or 503 answer. */
    retryAfterSeconds: number | undefined;
}

/** Source of randomness for `failureRate`, injected so tests are deterministic. */
export type Random = () => number;

/**
 * A webhook's own answer with its fault injection. The sequence position lives here, in memory: it
 * moves synchronously when a request takes its answer, so concurrent requests each get a different
 * step, and a new plan (the `response` was set again) starts counting from the first step.
 */
export class AnswerPlan {
    private readonly answers: Readonly<AnswerSpec>[];
    private position = 0;

    constructor(readonly spec: Readonly<ResponseSpec>, private readonly random: Random) {
        const { sequence, failureRate: _rate, failureStatusCode: _status, retryAfterSeconds: _retry, ...base } = spec;
        this.answers = sequence && sequence.length > 0 ? sequence.map((step) => Object.freeze({ ...base, ...step })) : [Object.freeze(base)];
    }

    /** Takes the next answer: sequence steps in order, the last one stays. */
    next(): AnswerPick {
        const last = this.answers.length - 1;
        const index = this.position < last ? this.position++ : last;
        const rate = this.spec.failureRate ?? 0;
        return {
            answer: this.answers[index]!,
            failed: rate > 0 && this.random() < rate,
            failureStatusCode: this.spec.failureStatusCode ?? 503,
            retryAfterSeconds: this.spec.retryAfterSeconds,
        };
    }
}
