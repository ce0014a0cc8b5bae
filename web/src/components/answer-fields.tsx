import type { JSX } from 'preact';
import type { AnswerForm, TextField } from '../answer-form.js';
import { RulesFields } from './rules-fields.js';

interface Props {
    form: AnswerForm;
    onChange(form: AnswerForm): void;
    /** Whether the API (or the form) found a problem with a field, to mark it invalid. */
    invalid(field: string): boolean;
    /** Whether a problem names a path starting with `prefix` (a rule's field). */
    invalidAt(prefix: string): boolean;
}

/** The answer part of the webhook editor: status, headers, body, delay, then fault injection. */
export function AnswerFields({ form, onChange, invalid, invalidAt }: Props): JSX.Element {
    const field = (name: TextField, label: string, hint: string, placeholder = 'run default'): JSX.Element => (
        <label>
            <span>{label} <span class="muted">{hint}</span></span>
            <input name={name} type="text" inputMode={name === 'failureRate' ? 'decimal' : 'numeric'} autoComplete="off" placeholder={placeholder} value={form[name]} aria-invalid={invalid(name)} onInput={(e) => onChange({ ...form, [name]: e.currentTarget.value })} />
        </label>
    );
    const area = (name: TextField, label: string, hint: string, rows: number, placeholder: string): JSX.Element => (
        <label class="wide">
            <span>{label} <span class="muted">{hint}</span></span>
            <textarea name={name} rows={rows} spellcheck={false} placeholder={placeholder} value={form[name]} aria-invalid={invalid(name)} onInput={(e) => onChange({ ...form, [name]: e.currentTarget.value })} />
        </label>
    );
    return (
        <>
            <fieldset class="form-grid">
                <legend>Answer</legend>
                <p class="wide muted hint">Empty fields keep the run's default answer. <code>?__status=</code> on a request still wins.</p>
                {field('statusCode', 'Status', '(200–599)')}
                {field('delayMs', 'Delay', '(ms, at most 10,000)')}
                {area('headers', 'Headers', '(Name: value per line, or a JSON object)', 2, 'Content-Type: application/json')}
                {area('body', 'Body', '', 3, 'run default')}
            </fieldset>
            <fieldset class="form-grid">
                <legend>Fault injection</legend>
                {area('sequence', 'Sequence', '(answers in order, the last one stays: statuses, or a JSON array of answers)', 2, '500, 500, 200')}
                {field('failureRate', 'Failure rate', '(0–1, chance of failing)', 'none')}
                {field('failureStatusCode', 'Failure status', '', '503')}
                {field('retryAfterSeconds', 'Retry-After', '(seconds, on 429 and 503)', 'none')}
                {field('rateRequests', 'Rate limit', '(requests per window, then 429)', 'none')}
                {field('rateSeconds', 'Window', '(seconds)', 'none')}
            </fieldset>
            <RulesFields rules={form.rules} onChange={(rules) => onChange({ ...form, rules })} invalidAt={invalidAt} />
        </>
    );
}
