import type { JSX } from 'preact';
import { NEW_RULE, type RuleForm } from '../rules-form.js';

interface Props {
    rules: RuleForm[];
    onChange(rules: RuleForm[]): void;
    /** Whether a 400 detail (or the form) names a path starting with `prefix` (`response.rules.0.when`). */
    invalidAt(prefix: string): boolean;
}

/** The request-side GET /logs parameters a condition may use, offered as suggestions. */
const KEYS = ['method', 'requestUrl', 'contentType', 'userAgent', 'remoteIp', 'size', 'size[gte]', 'size[lte]', 'headers', 'headers[name]', 'query', 'query[name]', 'body', 'body[path]'];

const move = <T,>(list: readonly T[], from: number, to: number): T[] => {
    const out = [...list];
    const [item] = out.splice(from, 1);
    out.splice(to, 0, item!);
    return out;
};

/** Answers by rule: each a `when` (GET /logs parameters as key/value rows) and an answer; the first match answers. */
export function RulesFields({ rules, onChange, invalidAt }: Props): JSX.Element {
    const update = (i: number, rule: RuleForm): void => onChange(rules.map((r, j) => (j === i ? rule : r)));
    return (
        <fieldset class="rules" aria-label="Rules">
            <legend>Rules</legend>
            <p class="muted hint">
                The first rule whose conditions all match answers (GET /logs parameters, e.g. <code>body[type]</code> = <code>invoice.voided</code>); no conditions match every request. Other requests get the answer above.
                Bodies and header values may use <code>{'{{request.body.id}}'}</code>, <code>{'{{json request.body}}'}</code>, <code>{'{{request.headers.name}}'}</code>, <code>{'{{now}}'}</code>, <code>{'{{uuid}}'}</code>.
            </p>
            <datalist id="rule-keys">{KEYS.map((k) => <option key={k} value={k} />)}</datalist>
            {rules.map((rule, i) => {
                const path = `response.rules.${i}`;
                const set = (field: Exclude<keyof RuleForm, 'when'>) => (e: Event): void => update(i, { ...rule, [field]: (e.currentTarget as HTMLInputElement).value });
                const setRow = (r: number, k: 0 | 1) => (e: Event): void => {
                    const when = rule.when.map((row, j): [string, string] => (j === r ? (k === 0 ? [(e.currentTarget as HTMLInputElement).value, row[1]] : [row[0], (e.currentTarget as HTMLInputElement).value]) : row));
                    update(i, { ...rule, when });
                };
                return (
                    <div class="rule form-grid" key={i} data-rule={i} role="group" aria-label={`Rule ${i + 1}`}>
                        <div class="wide rule-head">
                            <strong>Rule {i + 1}</strong>
                            <input name="ruleName" type="text" autoComplete="off" maxLength={200} aria-label={`Rule ${i + 1} name`} placeholder="name (optional)" value={rule.name} onInput={set('name')} />
                            <span class="spacer" />
                            <button type="button" class="btn small" aria-label={`Move rule ${i + 1} up`} disabled={i === 0} onClick={() => onChange(move(rules, i, i - 1))}>↑</button>
                            <button type="button" class="btn small" aria-label={`Move rule ${i + 1} down`} disabled={i === rules.length - 1} onClick={() => onChange(move(rules, i, i + 1))}>↓</button>
                            <button type="button" class="btn small danger" aria-label={`Remove rule ${i + 1}`} onClick={() => onChange(rules.filter((_, j) => j !== i))}>Remove</button>
                        </div>
                        <div class="wide when" aria-invalid={invalidAt(`${path}.when`)}>
                            <span class="muted">When</span>
                            {rule.when.map(([key, value], r) => (
                                <div class="when-row" key={r}>
                                    <input name="whenKey" list="rule-keys" autoComplete="off" aria-label={`Rule ${i + 1} condition ${r + 1} parameter`} placeholder="body[type]" value={key} aria-invalid={key !== '' && invalidAt(`${path}.when.${key}`)} onInput={setRow(r, 0)} />
                                    <input name="whenValue" autoComplete="off" aria-label={`Rule ${i + 1} condition ${r + 1} value`} placeholder="invoice.voided" value={value} onInput={setRow(r, 1)} />
                                    <button type="button" class="btn small" aria-label={`Remove rule ${i + 1} condition ${r + 1}`} onClick={() => update(i, { ...rule, when: rule.when.filter((_, j) => j !== r) })}>×</button>
                                </div>
                            ))}
                            <button type="button" class="btn small" onClick={() => update(i, { ...rule, when: [...rule.when, ['', '']] })}>Add condition</button>
                        </div>
                        <label>
                            <span>Status <span class="muted">(200–599)</span></span>
                            <input name="ruleStatus" inputMode="numeric" autoComplete="off" placeholder="webhook's" value={rule.statusCode} aria-invalid={invalidAt(`${path}.answer.statusCode`)} onInput={set('statusCode')} />
                        </label>
                        <label>
                            <span>Delay <span class="muted">(ms)</span></span>
                            <input name="ruleDelay" inputMode="numeric" autoComplete="off" placeholder="webhook's" value={rule.delayMs} aria-invalid={invalidAt(`${path}.answer.delayMs`)} onInput={set('delayMs')} />
                        </label>
                        <label class="wide">
                            <span>Headers <span class="muted">(Name: value per line)</span></span>
                            <textarea name="ruleHeaders" rows={1} spellcheck={false} placeholder="webhook's" value={rule.headers} aria-invalid={invalidAt(`${path}.answer.headers`)} onInput={set('headers')} />
                        </label>
                        <label class="wide">
                            <span>Body <span class="muted">(a template)</span></span>
                            <textarea name="ruleBody" rows={2} spellcheck={false} placeholder={'{"received": "{{request.body.id}}"}'} value={rule.body} aria-invalid={invalidAt(`${path}.answer.body`)} onInput={set('body')} />
                        </label>
                    </div>
                );
            })}
            <button type="button" class="btn small" disabled={rules.length >= 50} onClick={() => onChange([...rules, { ...NEW_RULE, when: [['', '']] }])}>Add rule</button>
        </fieldset>
    );
}
