import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { errorDetails, getJson, send } from '../api.js';
import { fromForm, toForm, type AnswerForm } from '../answer-form.js';
import { timeLeft } from '../format.js';
import type { ErrorDetail, Webhook, WebhookPatch } from '../types.js';
import { AnswerFields } from './answer-fields.js';
import type { Confirm } from './confirm.js';
import { CopyButton } from './copy-button.js';

interface Props {
    webhook: Webhook;
    confirm: Confirm;
    onSaved(webhook: Webhook): void;
    onCleared(id: string): void;
    onDeleted(id: string): void;
    onClose(): void;
}

/** The field a 400 detail is about: `response.statusCode` → statusCode, `name` → name. */
const fieldOf = (path: string): string => {
    const parts = path.split(/[./]/).filter(Boolean);
    return (parts[0] === 'response' ? parts[1] : parts[0]) ?? '';
};
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));
const same = (a: AnswerForm, b: AnswerForm): boolean => JSON.stringify(a) === JSON.stringify(b);

/** One webhook's settings in a modal dialog: name, expiry and answer; clear its captures or delete it. */
export function WebhookEditor({ webhook, confirm, onSaved, onCleared, onDeleted, onClose }: Props): JSX.Element {
    const ref = useRef<HTMLDialogElement>(null);
    const [current, setCurrent] = useState(webhook);
    const [name, setName] = useState(webhook.name ?? '');
    const [hours, setHours] = useState('');
    const initial = useRef(toForm(webhook.response));
    const [answer, setAnswer] = useState(initial.current);
    const [problem, setProblem] = useState('');
    const [details, setDetails] = useState<ErrorDetail[]>([]);
    const [note, setNote] = useState('');
    const [busy, setBusy] = useState(false);

    useEffect(() => {
        ref.current?.showModal();
        // The list's capture count may be old; the editor shows the current one.
        getJson<Webhook>(`/webhooks/${encodeURIComponent(webhook.id)}`).then(setCurrent, (e: unknown) => setProblem(message(e)));
    }, []);

    const fail = (e: unknown): void => {
        setProblem(message(e));
        setDetails(errorDetails(e));
    };
    const act = async (run: () => Promise<void>): Promise<void> => {
        setBusy(true);
        setProblem('');
        setDetails([]);
        setNote('');
        try {
            await run();
        } catch (e) {
            fail(e);
        } finally {
            setBusy(false);
        }
    };

    const save = (): Promise<void> =>
        act(async () => {
            const patch: WebhookPatch = {};
            if (name.trim() !== (webhook.name ?? '')) patch.name = name.trim() || null;
            if (hours.trim()) patch.retentionHours = Number(hours);
            // The answer goes only when edited: sending it again would restart its sequence.
            if (!same(answer, initial.current)) {
                const { response, errors } = fromForm(answer);
                if (errors.length) {
                    setProblem('Fix these fields:');
                    setDetails(errors);
                    return;
                }
                patch.response = response;
            }
            if (!Object.keys(patch).length) return setNote('Nothing changed.');
            const saved = await send<Webhook>('PATCH', `/webhooks/${encodeURIComponent(webhook.id)}`, patch);
            if (saved) onSaved(saved);
            onClose();
        });

    const label = webhook.name ? `"${webhook.name}"` : webhook.url;
    const clear = async (): Promise<void> => {
        if (!(await confirm({ title: 'Clear captures', message: `Delete every capture of ${label}? This cannot be undone.`, action: 'Delete captures' }))) return;
        await act(async () => {
            const res = await send<{ deleted: number }>('DELETE', `/logs?webhookId=${encodeURIComponent(webhook.id)}`);
            onCleared(webhook.id);
            setCurrent((w) => ({ ...w, count: 0 }));
            setNote(`Deleted ${res?.deleted ?? 0} ${res?.deleted === 1 ? 'capture' : 'captures'}.`);
        });
    };
    const remove = async (): Promise<void> => {
        if (!(await confirm({ title: 'Delete URL', message: `Delete ${label} and all its captures? Requests to it will get 404.`, action: 'Delete URL' }))) return;
        await act(async () => {
            await send('DELETE', `/webhooks/${encodeURIComponent(webhook.id)}`);
            onDeleted(webhook.id);
            onClose();
        });
    };

    const invalid = (field: string): boolean => details.some((d) => fieldOf(d.path) === field);
    return (
        <dialog ref={ref} class="dialog editor" aria-labelledby="editor-title" onCancel={(e) => (e.preventDefault(), onClose())}>
            <form
                aria-describedby={problem ? 'editor-errors' : undefined}
                onSubmit={(e) => {
                    e.preventDefault();
                    void save();
                }}
            >
                <header class="editor-head">
                    <h2 id="editor-title">Webhook settings</h2>
                    <code class="hook-url">{webhook.url}</code>
                    <CopyButton text={webhook.url} label="Copy URL" />
                </header>
                <p class="muted">
                    {current.count} {current.count === 1 ? 'capture' : 'captures'} · created {new Date(current.createdAt).toLocaleString()} · expires {new Date(current.expiresAt).toLocaleString()} ({timeLeft(current.expiresAt, Date.now())} left)
                </p>
                <fieldset class="form-grid">
                    <legend>Name and expiry</legend>
                    <label>
                        Name
                        <input name="name" type="text" autoComplete="off" maxLength={200} placeholder="e.g. Stripe staging" value={name} aria-invalid={invalid('name')} onInput={(e) => setName(e.currentTarget.value)} />
                    </label>
                    <label>
                        <span>Expires in <span class="muted">(hours from now, at most 168)</span></span>
                        <input name="retentionHours" type="text" inputMode="numeric" autoComplete="off" placeholder="unchanged" value={hours} aria-invalid={invalid('retentionHours')} onInput={(e) => setHours(e.currentTarget.value)} />
                    </label>
                </fieldset>
                <AnswerFields form={answer} onChange={setAnswer} invalid={invalid} invalidAt={(prefix) => details.some((d) => d.path === prefix || d.path.startsWith(`${prefix}.`))} />
                {problem && (
                    <div id="editor-errors" class="form-errors" role="alert">
                        <p>{problem}</p>
                        {details.length > 0 && (
                            <ul>
                                {details.map((d, i) => <li key={i}><code>{d.path || '(body)'}</code> {d.message}</li>)}
                            </ul>
                        )}
                    </div>
                )}
                {note && <p class="note" role="status">{note}</p>}
                <div class="dialog-actions">
                    <button type="submit" class="btn primary" disabled={busy}>Save</button>
                    <button type="button" class="btn" onClick={onClose}>Close</button>
                    <span class="spacer" />
                    <button type="button" class="btn danger" disabled={busy} onClick={() => void clear()}>Clear captures</button>
                    <button type="button" class="btn danger" disabled={busy} onClick={() => void remove()}>Delete URL</button>
                </div>
            </form>
        </dialog>
    );
}
