import { AppError, type ErrorDetail } from '../errors.js';
import { compileFilters } from '../filters/predicate.js';
import { parseFilterSet } from '../filters/set.js';
import type { FilterSubject } from '../filters/subject.js';
import type { Filter } from '../filters/types.js';
import type { RuleSpec } from '../api/webhook.js';

// A rule's `when` is a GET /logs query restricted to the request side, parsed by the one filter
// language (src/filters) and matched by its predicate, which answers as /logs does on SQLite: what a
// rule matched is what /logs with the same parameters lists.

/** The filters a `when` may use: the request's side of GET /logs (not the answer's, nor answeredBy). */
export const RULE_BASES: ReadonlySet<string> = new Set(['method', 'requestUrl', 'contentType', 'userAgent', 'remoteIp', 'size', 'headers', 'query', 'body', 'form', 'hasFiles']);

/** A `when` value: a scalar, or a list that repeats the parameter. */
type WhenValue = string | number | boolean | readonly (string | number | boolean)[];

/** One key of a `when` as GET /logs parameters ([name, value] pairs). */
const pairsOf = (key: string, value: WhenValue): [string, string][] => (Array.isArray(value) ? value : [value]).map((v) => [key, String(v)]);

/** The filters of one `when`, and a problem per key that is not a request-side /logs parameter or has a bad value (path `<prefix>.<key>`). */
export function parseWhen(when: Readonly<Record<string, WhenValue>>, prefix: string): { filters: Filter[]; problems: ErrorDetail[] } {
    const filters: Filter[] = [];
    const problems: ErrorDetail[] = [];
    for (const key of Object.keys(when)) {
        const base = /^[A-Za-z_]+/.exec(key)?.[0] ?? '';
        try {
            // parseFilterSet passes over a few names (`key`, `token`) that are never filters; here they are unknown.
            if (!RULE_BASES.has(base)) throw new AppError(400, `Parameter '${key}' is not a rule condition parameter: use ${[...RULE_BASES].join(', ')} (and their [key] and range forms)`);
            filters.push(...parseFilterSet(pairsOf(key, when[key]!), { what: 'rule condition', allow: RULE_BASES }).filters);
        } catch (error) {
            if (!(error instanceof AppError)) throw error;
            problems.push({ path: `${prefix}.${key}`, message: error.message });
        }
    }
    return { filters, problems };
}

/** A rule ready to match: its position, its name, its test. */
export interface CompiledRule {
    index: number;
    name: string | null;
    test: (s: FilterSubject) => boolean;
}

/**
 * The rules of a `response`, compiled once. A rule whose `when` does not parse (a stored webhook from
 * a build that read it otherwise) never matches; validation refuses such a rule before it is stored.
 */
export function compileRules(rules: readonly RuleSpec[]): CompiledRule[] {
    return rules.map((rule, index) => {
        const { filters, problems } = parseWhen(rule.when as Record<string, WhenValue>, '');
        return { index, name: rule.name ?? null, test: problems.length > 0 ? () => false : compileFilters(filters) };
    });
}

/** The first rule that matches the subject, or undefined. */
export function firstMatch(rules: readonly CompiledRule[], subject: FilterSubject): CompiledRule | undefined {
    for (const rule of rules) if (rule.test(subject)) return rule;
    return undefined;
}
