import type { ErrorDetail, ResponseSpec } from './types.js';

type RuleSpec = NonNullable<ResponseSpec['rules']>[number];

/** One rule as the editor shows it: `when` as key/value rows (GET /logs parameters), the answer's fields as typed. */
export interface RuleForm {
    name: string;
    when: [key: string, value: string][];
    statusCode: string;
    headers: string;
    body: string;
    delayMs: string;
}

/** A new rule: one empty condition row, the webhook's own answer. */
export const NEW_RULE: RuleForm = { name: '', when: [['', '']], statusCode: '', headers: '', body: '', delayMs: '' };

const text = (v: unknown): string => (v === undefined ? '' : String(v));

/** A stored rule's form: a list value of `when` becomes one row per item. */
export function ruleToForm(rule: RuleSpec): RuleForm {
    const when: [string, string][] = [];
    for (const [key, value] of Object.entries(rule.when)) for (const v of Array.isArray(value) ? value : [value]) when.push([key, String(v)]);
    const { answer } = rule;
    return {
        name: rule.name ?? '',
        when,
        statusCode: text(answer.statusCode),
        headers: Object.entries(answer.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n'),
        body: answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body, null, 2),
        delayMs: text(answer.delayMs),
    };
}

/** `Name: value` lines as headers; throws on a line without a colon. */
function headersOf(lines: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const line of lines.split('\n')) {
        if (!line.trim()) continue;
        const colon = line.indexOf(':');
        if (colon <= 0) throw new Error(`not a "Name: value" line: ${line.trim()}`);
        out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    return out;
}

/**
 * The rules to send, and what cannot be sent at all (text in a number field, a header line without a
 * colon), each at the path the API would name. Rows without a key are left out; a key given on
 * several rows becomes a list (the parameter repeated). Values stay text: the API reads them as
 * GET /logs reads its parameters.
 */
export function rulesFromForm(rules: readonly RuleForm[]): { rules: RuleSpec[]; errors: ErrorDetail[] } {
    const errors: ErrorDetail[] = [];
    const out = rules.map((r, i): RuleSpec => {
        const when: Record<string, string | string[]> = {};
        for (const [key, value] of r.when) {
            const k = key.trim();
            if (!k) continue;
            const prev = when[k];
            when[k] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
        }
        const answer: RuleSpec['answer'] = {};
        for (const field of ['statusCode', 'delayMs'] as const) {
            const t = r[field].trim();
            if (!t) continue;
            if (Number.isFinite(Number(t))) answer[field] = Number(t);
            else errors.push({ path: `response.rules.${i}.answer.${field}`, message: 'must be a number' });
        }
        if (r.headers.trim()) {
            try {
                answer.headers = headersOf(r.headers);
            } catch (e) {
                errors.push({ path: `response.rules.${i}.answer.headers`, message: e instanceof Error ? e.message : String(e) });
            }
        }
        if (r.body !== '') answer.body = r.body;
        return r.name.trim() ? { name: r.name.trim(), when, answer } : { when, answer };
    });
    return { rules: out, errors };
}

/** The GET /logs parameters of a rule's `when`: what the rule matches, as a query of history. */
export function whenParams(when: Readonly<Record<string, unknown>>): URLSearchParams {
    const p = new URLSearchParams();
    for (const [key, value] of Object.entries(when)) for (const v of Array.isArray(value) ? value : [value]) p.append(key, String(v));
    return p;
}
