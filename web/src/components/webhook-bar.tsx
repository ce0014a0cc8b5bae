import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { timeLeft } from '../format.js';
import type { ResponseSpec } from '../types.js';
import type { Webhooks } from '../webhooks.js';
import type { Confirm } from './confirm.js';
import { CopyButton } from './copy-button.js';
import { WebhookEditor } from './webhook-editor.js';

interface Props {
    hooks: Webhooks;
    confirm: Confirm;
    /** A webhook's captures were deleted (cleared, or the webhook with them). */
    onCapturesGone(webhookId: string): void;
}

/** A short account of a webhook's own answer for its row, e.g. "503 · fails 20% → 503"; '' when it has none. */
export function answerSummary(r: ResponseSpec | null): string {
    if (!r) return '';
    const parts: string[] = [];
    if (r.statusCode !== undefined) parts.push(`answers ${r.statusCode}`);
    if (r.sequence?.length) parts.push(`sequence ${r.sequence.map((a) => a.statusCode ?? r.statusCode ?? 'default').join(', ')}`);
    if (r.failureRate) parts.push(`fails ${Math.round(r.failureRate * 1000) / 10}% → ${r.failureStatusCode ?? 503}`);
    if (r.delayMs) parts.push(`${r.delayMs} ms delay`);
    if (r.rules?.length) parts.push(`${r.rules.length} ${r.rules.length === 1 ? 'rule' : 'rules'}`);
    if (r.rateLimit) parts.push(`limit ${r.rateLimit.requests}/${r.rateLimit.perSeconds} s`);
    return parts.join(' · ') || 'custom answer';
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The webhook URLs with copy buttons, time left and their settings, and a "New URL" button. */
export function WebhookBar({ hooks, confirm, onCapturesGone }: Props): JSX.Element {
    const [now, setNow] = useState(Date.now());
    const [editing, setEditing] = useState<string | null>(null);
    const [fresh, setFresh] = useState<string | null>(null);
    const [status, setStatus] = useState('');
    useEffect(() => {
        const timer = setInterval(() => setNow(Date.now()), 15_000);
        return () => clearInterval(timer);
    }, []);
    const create = async (): Promise<void> => {
        try {
            const made = await hooks.create();
            setFresh(made.id);
            setStatus(`New URL ready: ${made.url}`);
        } catch (e) {
            setStatus(`New URL failed: ${message(e)}`);
        }
    };
    const list = hooks.list ?? [];
    const open = list.find((w) => w.id === editing);
    return (
        <section class="hooks-bar" aria-label="Webhook URLs">
            {hooks.error && <p class="error">{hooks.error}</p>}
            {hooks.list && !list.length && <p class="muted">No active webhooks.</p>}
            <ul class="hooks">
                {list.map((h) => {
                    const left = timeLeft(h.expiresAt, now);
                    const answer = answerSummary(h.response);
                    return (
                        <li key={h.id} class={h.id === fresh ? 'hook fresh' : 'hook'} data-id={h.id}>
                            {h.name && <span class="hook-name">{h.name}</span>}
                            <code class="hook-url" title={h.url}>{h.url}</code>
                            <CopyButton text={h.url} label="Copy URL" title={`Copy ${h.url}`} />
                            {answer && <span class="badge answer" title="This URL's own answer">{answer}</span>}
                            <span class={left === 'expired' ? 'badge bad' : 'badge'} title={`Expires ${new Date(h.expiresAt).toLocaleString()}`}>
                                {left === 'expired' ? 'expired' : `${left} left`}
                            </span>
                            <button type="button" class="btn small" aria-label={`Edit ${h.name || h.id}`} onClick={() => setEditing(h.id)}>Edit</button>
                        </li>
                    );
                })}
                <li>
                    <button type="button" class="btn small primary" onClick={() => void create()}>New URL</button>
                </li>
            </ul>
            {status && <p class="muted note" role="status">{status}</p>}
            {open && (
                <WebhookEditor
                    key={open.id}
                    webhook={open}
                    confirm={confirm}
                    onSaved={hooks.replace}
                    onCleared={onCapturesGone}
                    onDeleted={(id) => {
                        hooks.forget(id);
                        onCapturesGone(id);
                        setStatus(`Deleted ${open.url}`);
                    }}
                    onClose={() => setEditing(null)}
                />
            )}
        </section>
    );
}
