/**
 * How a faulty request is answered: an HTTP status, or `hang` (the request is read, then never
 * answered) or `drip` (a 200 whose body comes one byte per second and never ends). Neither
 * processes the request.
 */
export type FaultAnswer = number | 'hang' | 'drip';

/** A rule that makes matching API requests fail, as a loaded or flaky platform does. */
export interface FaultRule {
    /** HTTP method to match; any when absent. */
    method?: string;
    /** Matched against the path (without the query). */
    path: RegExp;
    /** Statuses answered in turn, e.g. [429, 500, 503]. */
    statuses: FaultAnswer[];
    /** Fail every n-th matching request (1 = each one). */
    every: number;
    /** How many failures in all; Infinity for no end. */
    times: number;
}

/** Injected 429/5xx faults: rules, and counters of what they did. */
export class Faults {
    private rules: (FaultRule & { seen: number; failed: number })[] = [];
    /** Failures answered so far, by status. */
    readonly answered = new Map<FaultAnswer, number>();

    /** Adds a rule; the returned handle counts the requests it saw and failed. */
    inject(rule: FaultRule): { readonly seen: number; readonly failed: number } {
        const entry = { ...rule, seen: 0, failed: 0 };
        this.rules.push(entry);
        return entry;
    }

    /** Removes every rule. */
    clear(): void {
        this.rules = [];
    }

    /** The status to fail this request with, if a rule says so. */
    pick(method: string, path: string): FaultAnswer | undefined {
        for (const rule of this.rules) {
            if (rule.method && rule.method !== method) continue;
            if (!rule.path.test(path)) continue;
            rule.seen++;
            if (rule.failed >= rule.times || rule.seen % rule.every !== 0) continue;
            const status = rule.statuses[rule.failed % rule.statuses.length]!;
            rule.failed++;
            this.answered.set(status, (this.answered.get(status) ?? 0) + 1);
            return status;
        }
        return undefined;
    }

    /** Failures answered so far, all statuses. */
    total(): number {
        let sum = 0;
        for (const n of this.answered.values()) sum += n;
        return sum;
    }
}
