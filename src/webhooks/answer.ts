import type { FilterSubject } from '../filters/subject.js';
import type { AnswerSpec, ResponseSpec } from '../storage/types.js';
import { compileAnswerTemplates, type AnswerTemplates } from './answer-templates.js';
import { RateWindow, type RateDecision } from './rate-window.js';
import { compileRules, firstMatch, type CompiledRule } from './rules.js';

/** What one request to a webhook with its own answer gets. */
export interface AnswerPick {
    /** The answer (a rule's or a sequence step's over the base fields); unset fields fall back to the run's defaults. */
    answer: Readonly<AnswerSpec>;
    /** The answer's templates; undefined when it has none. */
    templates: AnswerTemplates | undefined;
    /** Whether fault injection (`failureRate`) chose a failure for this request. */
    failed: boolean;
    /** The status of an injected failure. */
    failureStatusCode: number;
    /** Added as Retry-After to a 429 or 503 answer. */
    retryAfterSeconds: number | undefined;
    /** The rule that gave the answer. */
    rule?: { index: number; name: string | null };
    /** The simulated rate limit's decision, when the webhook has one; `allowed: false` answers 429. */
    rate?: RateDecision;
}

/** Source of randomness for `failureRate`, injected so tests are deterministic. */
export type Random = () => number;

/** One answer with its templates, built once per plan. */
interface PlannedAnswer {
    answer: Readonly<AnswerSpec>;
    templates: AnswerTemplates | undefined;
}

const planned = (answer: AnswerSpec): PlannedAnswer => ({ answer: Object.freeze(answer), templates: compileAnswerTemplates(answer) });

/**
 * A webhook's own answer: its simulated rate limit, then its rules, then its sequence and fault
 * injection. The sequence position and the rate window live here, in memory: they move
 * synchronously when a request takes its answer, so concurrent requests each get a different step
 * and are counted exactly, and a new plan (the `response` was set again) starts both afresh.
 * Templates and rule conditions are compiled here, once.
 */
export class AnswerPlan {
    private readonly answers: PlannedAnswer[];
    private readonly rules: CompiledRule[];
    /** Each rule's pick (its answer over the base fields), by the rule's index: built once, as a matching rule takes nothing per request. */
    private readonly rulePicks: Readonly<AnswerPick>[];
    private readonly window: RateWindow | undefined;
    private position = 0;

    constructor(readonly spec: Readonly<ResponseSpec>, private readonly random: Random) {
        const { sequence, failureRate: _rate, failureStatusCode: _status, retryAfterSeconds: _retry, rules, rateLimit, ...base } = spec;
        this.answers = sequence && sequence.length > 0 ? sequence.map((step) => planned({ ...base, ...step })) : [planned(base)];
        this.rules = rules ? compileRules(rules) : [];
        const common = { failed: false, failureStatusCode: spec.failureStatusCode ?? 503, retryAfterSeconds: spec.retryAfterSeconds };
        this.rulePicks = this.rules.map((rule) => Object.freeze({ ...planned({ ...base, ...rules![rule.index]!.answer }), ...common, rule: { index: rule.index, name: rule.name } }));
        this.window = rateLimit ? new RateWindow(rateLimit) : undefined;
    }

    /** Whether picking reads the request: the caller then passes its subject. */
    get hasRules(): boolean {
        return this.rules.length > 0;
    }

    /**
     * Takes the answer for a request at `now` (ms): a 429 when the rate limit has no room, else the
     * first rule whose `when` matches `subject` (built on first use), else the next sequence step
     * (the last one stays) with fault injection.
     */
    next(subject?: () => FilterSubject, now = Date.now()): AnswerPick {
        const rate = this.window?.hit(now);
        const first = this.answers[0]!;
        const common = { failed: false, failureStatusCode: this.spec.failureStatusCode ?? 503, retryAfterSeconds: this.spec.retryAfterSeconds };
        const withRate = (pick: AnswerPick): AnswerPick => (rate ? { ...pick, rate } : pick);
        if (rate && !rate.allowed) return withRate({ ...first, ...common });
        const matched = this.rules.length > 0 && subject ? firstMatch(this.rules, subject()) : undefined;
        if (matched) return withRate(this.rulePicks[matched.index]!);
        const last = this.answers.length - 1;
        const index = this.position < last ? this.position++ : last;
        const rateOfFailure = this.spec.failureRate ?? 0;
        return withRate({ ...this.answers[index]!, ...common, failed: rateOfFailure > 0 && this.random() < rateOfFailure });
    }
}
