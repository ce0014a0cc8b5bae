import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { postJson } from '../api.js';
import type { LogEntry, ReplayRecord, ReplayResult } from '../types.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const TARGET_KEY = 'whd.replayTarget';

/** Parses the header edits: a JSON object (null removes a header) or `Name: value` lines. */
export function parseHeaderEdits(text: string): Record<string, string | null> {
    const t = text.trim();
    if (!t) return {};
    if (t.startsWith('{')) {
        const obj = JSON.parse(t) as unknown;
        if (!obj || typeof obj !== 'object' || Array.isArray(obj)) throw new Error('Headers must be a JSON object');
        const out: Record<string, string | null> = {};
        for (const [k, v] of Object.entries(obj)) out[k] = v === null ? null : String(v);
        return out;
    }
    const out: Record<string, string | null> = {};
    for (const line of t.split('\n')) {
        if (!line.trim()) continue;
        const colon = line.indexOf(':');
        if (colon <= 0) throw new Error(`Not a header line: ${line}`);
        const value = line.slice(colon + 1).trim();
        out[line.slice(0, colon).trim()] = value === '' ? null : value;
    }
    return out;
}

/** Replays the open capture to a target, with optional edits, and shows the result and the history. */
export function ReplayPanel({ entry, canResign, bodyText, onDone }: { entry: LogEntry; canResign: boolean; bodyText: string | null; onDone(): void }): JSX.Element {
    const [target, setTarget] = useState(() => localStorage.getItem(TARGET_KEY) ?? '');
    const [method, setMethod] = useState(entry.method);
    const [headers, setHeaders] = useState('');
    const [editBody, setEditBody] = useState(false);
    const [body, setBody] = useState(bodyText ?? '');
    const [resign, setResign] = useState(false);
    const [busy, setBusy] = useState(false);
    const [result, setResult] = useState<{ status: number; body: ReplayResult } | null>(null);
    const [error, setError] = useState('');

    const send = async (): Promise<void> => {
        setError('');
        setResult(null);
        const edits: Record<string, unknown> = {};
        try {
            if (method !== entry.method) edits.method = method;
            const h = parseHeaderEdits(headers);
            if (Object.keys(h).length) edits.headers = h;
        } catch (e) {
            setError(e instanceof Error ? e.message : String(e));
            return;
        }
        if (editBody) edits.body = body;
        if (resign) edits.resign = true;
        localStorage.setItem(TARGET_KEY, target);
        setBusy(true);
        try {
            const path = `/replay/${encodeURIComponent(entry.webhookId)}/${encodeURIComponent(entry.id)}?url=${encodeURIComponent(target)}`;
            setResult(await postJson<ReplayResult>(path, edits));
            onDone();
        } catch (e) {
            setError(e instanceof Error ? e.message : String(e));
        } finally {
            setBusy(false);
        }
    };

    return (
        <section class="replay" aria-label="Replay">
            <form
                class="replay-form"
                onSubmit={(e) => {
                    e.preventDefault();
                    void send();
                }}
            >
                <label class="wide">
                    Target URL
                    <input name="target" type="url" required placeholder="https://example.com/hook" value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
                </label>
                <label>
                    Method
                    <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
                        {[...new Set([entry.method, ...METHODS])].map((m) => <option key={m} value={m}>{m}</option>)}
                    </select>
                </label>
                {canResign && (
                    <label class="check">
                        <input name="resign" type="checkbox" checked={resign} onChange={(e) => setResign(e.currentTarget.checked)} />
                        Re-sign with the configured secret
                    </label>
                )}
                <label class="wide">
                    Header edits <span class="muted">(Name: value per line, empty value removes; or a JSON object)</span>
                    <textarea name="headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} />
                </label>
                <label class="check wide">
                    <input name="editBody" type="checkbox" checked={editBody} onChange={(e) => setEditBody(e.currentTarget.checked)} />
                    Edit body
                </label>
                {editBody && (
                    <label class="wide">
                        Body <span class="muted">(sent as UTF-8 text)</span>
                        <textarea name="body" rows={6} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
                    </label>
                )}
                <button type="submit" class="btn primary" disabled={busy}>{busy ? 'Replaying…' : 'Replay'}</button>
            </form>
            {error && <p class="error">{error}</p>}
            {result && <ReplayOutcome result={result} />}
            <ReplayHistory replays={entry.replays ?? []} />
        </section>
    );
}

function ReplayOutcome({ result }: { result: { status: number; body: ReplayResult } }): JSX.Element {
    const r = result.body;
    const ok = result.status < 300;
    return (
        <div class={ok ? 'outcome ok' : 'outcome bad'} data-testid="replay-result">
            {ok ? (
                <p>
                    Target answered <strong class="target-status">{r.targetResponseCode}</strong>
                    {r.resigned ? ' (re-signed)' : ''}
                </p>
            ) : (
                <p>
                    Replay failed ({result.status}): <strong>{r.error ?? ''}</strong> {r.message ?? ''} {r.code ? `[${r.code}]` : ''}
                </p>
            )}
            {r.strippedHeaders && r.strippedHeaders.length > 0 && <p class="muted">Stripped headers: {r.strippedHeaders.join(', ')}</p>}
            {r.targetResponseBody !== undefined && <pre class="code small">{r.targetResponseBody}</pre>}
        </div>
    );
}

/** What sent each history entry: POST /replay (and records from before `via` existed), the `listen` command, a bulk replay job. */
const VIA_TITLE: Record<NonNullable<ReplayRecord['via']>, string> = {
    replay: 'Replayed from here or with POST /replay',
    listen: 'Delivered to a local server by webhook-debugger listen',
    job: 'Sent by a bulk replay job',
};

function ReplayHistory({ replays }: { replays: ReplayRecord[] }): JSX.Element {
    if (!replays.length) return <p class="muted">Not replayed yet.</p>;
    return (
        <table class="history" aria-label="Replay history">
            <thead>
                <tr><th>When</th><th>By</th><th>Target</th><th>Status</th><th>Attempts</th><th>Note</th></tr>
            </thead>
            <tbody>
                {[...replays].reverse().map((r, i) => (
                    <tr key={i}>
                        <td>{new Date(r.at).toLocaleString()}</td>
                        <td class="via" title={VIA_TITLE[r.via ?? 'replay']}>{r.via ?? 'replay'}</td>
                        <td class="path">{r.targetUrl}</td>
                        <td>{r.targetResponseCode ?? '—'}</td>
                        <td>{r.attempts}</td>
                        <td>{[r.resigned ? 're-signed' : '', r.durationMs !== undefined ? `${r.durationMs} ms` : '', r.error ?? ''].filter(Boolean).join('; ')}</td>
                    </tr>
                ))}
            </tbody>
        </table>
    );
}
