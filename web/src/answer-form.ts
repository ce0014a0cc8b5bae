import { ruleToForm, rulesFromForm, type RuleForm } from './rules-form.js';
import type { AnswerSpec, ErrorDetail, ResponseSpec } from './types.js';

/** The answer editor's fields as typed; an empty field means "the run's default". */
export interface AnswerForm {
    statusCode: string;
    body: string;
    headers: string;
    delayMs: string;
    sequence: string;
    failureRate: string;
    failureStatusCode: string;
    retryAfterSeconds: string;
    /** The rate limit simulation: both set, or neither. */
    rateRequests: string;
    rateSeconds: string;
    /** Answers by rule, in order. */
    rules: RuleForm[];
}

/** The fields typed as text (every one but the rules). */
export type TextField = Exclude<keyof AnswerForm, 'rules'>;

const NUMBER_FIELDS = ['statusCode', 'delayMs', 'failureRate', 'failureStatusCode', 'retryAfterSeconds'] as const;

const headerLines = (headers: Record<string, string>): string =>
    Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n');

/** A sequence as the editor shows it: "500, 500, 200" when it holds only statuses, else JSON. */
function sequenceText(sequence: AnswerSpec[] | undefined): string {
    if (!sequence?.length) return '';
    const statusesOnly = sequence.every((a) => Object.keys(a).length === 1 && typeof a.statusCode === 'number');
    return statusesOnly ? sequence.map((a) => a.statusCode).join(', ') : JSON.stringify(sequence, null, 2);
}

/** The editor's fields for a webhook's stored answer (all empty when it has none). */
export function toForm(response: ResponseSpec | null): AnswerForm {
    const r = response ?? {};
    const num = (v: number | undefined): string => (v === undefined ? '' : String(v));
    return {
        statusCode: num(r.statusCode),
        body: r.body === undefined ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(r.body, null, 2),
        headers: headerLines(r.headers ?? {}),
        delayMs: num(r.delayMs),
        sequence: sequenceText(r.sequence),
        failureRate: num(r.failureRate),
        failureStatusCode: num(r.failureStatusCode),
        retryAfterSeconds: num(r.retryAfterSeconds),
        rateRequests: num(r.rateLimit?.requests),
        rateSeconds: num(r.rateLimit?.perSeconds),
        rules: (r.rules ?? []).map(ruleToForm),
    };
}

/** `Name: value` lines or a JSON object; what is not a string is left for the API to refuse. */
function parseHeaders(text: string): Record<string, string> {
    const t = text.trim();
    if (t.startsWith('{')) return JSON.parse(t) as Record<string, string>;
    const out: Record<string, string> = {};
    for (const line of t.split('\n')) {
        if (!line.trim()) continue;
        const colon = line.indexOf(':');
        if (colon <= 0) throw new Error(`not a "Name: value" line: ${line.trim()}`);
        out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    return out;
}

/** "500, 500, 200" (statuses) or a JSON array of answers. */
function parseSequence(text: string): AnswerSpec[] {
    const t = text.trim();
    if (t.startsWith('[')) return JSON.parse(t) as AnswerSpec[];
    return t.split(/[\s,]+/).filter(Boolean).map((token) => {
        if (!/^\d+$/.test(token)) throw new Error(`"${token}" is not a status code; write statuses like 500, 500, 200 or a JSON array of answers`);
        return { statusCode: Number(token) };
    });
}

/**
 * The `response` to send for the editor's fields: null when every field is empty (the run's
 * defaults apply). Only what cannot be sent at all (text in a number field, broken JSON) is an error
 * here; ranges and the rest are the API's to judge, so its 400 details say it in one voice.
 */
export function fromForm(form: AnswerForm): { response: ResponseSpec | null; errors: ErrorDetail[] } {
    const errors: ErrorDetail[] = [];
    const response: Record<string, unknown> = {};
    for (const field of NUMBER_FIELDS) {
        const text = form[field].trim();
        if (!text) continue;
        const n = Number(text);
        if (Number.isFinite(n)) response[field] = n;
        else errors.push({ path: `response.${field}`, message: 'must be a number' });
    }
    if (form.body !== '') response.body = form.body;
    const parse = (field: 'headers' | 'sequence', read: (t: string) => unknown): void => {
        if (!form[field].trim()) return;
        try {
            response[field] = read(form[field]);
        } catch (e) {
            errors.push({ path: `response.${field}`, message: e instanceof Error ? e.message : String(e) });
        }
    };
    parse('headers', parseHeaders);
    parse('sequence', parseSequence);
    const [requests, perSeconds] = [form.rateRequests.trim(), form.rateSeconds.trim()];
    if (requests || perSeconds) {
        if (Number.isFinite(Number(requests)) && Number.isFinite(Number(perSeconds)) && requests && perSeconds) response.rateLimit = { requests: Number(requests), perSeconds: Number(perSeconds) };
        else errors.push({ path: 'response.rateLimit', message: 'needs both a number of requests and a number of seconds' });
    }
    if (form.rules.length) {
        const rules = rulesFromForm(form.rules);
        response.rules = rules.rules;
        errors.push(...rules.errors);
    }
    return { response: Object.keys(response).length ? (response as ResponseSpec) : null, errors };
}
