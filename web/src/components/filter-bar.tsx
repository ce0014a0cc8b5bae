import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { NO_FILTERS, type Filters, type TextScope } from '../filters.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const SCOPES: [TextScope, string][] = [['body', 'Body'], ['headers', 'Headers'], ['query', 'Query'], ['requestUrl', 'Path']];

/** The filter form; it applies on submit (each filter is one /logs query). */
export function FilterBar({ value, webhooks, onApply }: { value: Filters; webhooks: { id: string; name: string | null }[]; onApply(f: Filters): void }): JSX.Element {
    const [draft, setDraft] = useState(value);
    useEffect(() => setDraft(value), [value]);
    const set = <K extends keyof Filters>(k: K) => (e: Event): void => setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value });
    return (
        <form
            class="filters"
            aria-label="Filters"
            onSubmit={(e) => {
                e.preventDefault();
                onApply(draft);
            }}
        >
            <select name="webhookId" aria-label="Webhook" value={draft.webhookId} onChange={set('webhookId')}>
                <option value="">All webhooks</option>
                {webhooks.map(({ id, name }) => <option key={id} value={id}>{name ? `${name} (${id})` : id}</option>)}
            </select>
            <select name="method" aria-label="Method" value={draft.method} onChange={set('method')}>
                <option value="">Any method</option>
                {METHODS.map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
            <span class="range">
                <input name="statusMin" aria-label="Status from" placeholder="status ≥" inputMode="numeric" size={5} value={draft.statusMin} onInput={set('statusMin')} />
                <input name="statusMax" aria-label="Status to" placeholder="≤" inputMode="numeric" size={5} value={draft.statusMax} onInput={set('statusMax')} />
            </span>
            <span class="search">
                <select name="scope" aria-label="Search in" value={draft.scope} onChange={set('scope')}>
                    {SCOPES.map(([s, label]) => <option key={s} value={s}>{label}</option>)}
                </select>
                <input name="text" type="search" aria-label="Search text" placeholder="contains… ( / )" value={draft.text} onInput={set('text')} />
            </span>
            <span class="range">
                <input name="from" type="datetime-local" step="1" aria-label="From time" value={draft.from} onInput={set('from')} />
                <input name="to" type="datetime-local" step="1" aria-label="To time" value={draft.to} onInput={set('to')} />
            </span>
            <button type="submit" class="btn primary">Apply</button>
            <button
                type="button"
                class="btn"
                onClick={() => {
                    setDraft(NO_FILTERS);
                    onApply(NO_FILTERS);
                }}
            >
                Clear
            </button>
        </form>
    );
}
