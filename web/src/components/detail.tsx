import type { JSX } from 'preact';
import { getPayload, withKey } from '../api.js';
import { bodyModel, exactBytes, readableBody } from '../body.js';
import { toCurl } from '../curl.js';
import { formatSize } from '../format.js';
import { whenParams } from '../rules-form.js';
import type { Info, LogEntry } from '../types.js';
import { BodyView } from './body-view.js';
import { CopyButton } from './copy-button.js';
import { FormView } from './form-view.js';
import { KvTable } from './kv-table.js';
import { JsonView } from './json-view.js';
import { ReplayPanel } from './replay-panel.js';

interface Props {
    entry: LogEntry;
    info: Info | null;
    authKey: string;
    marked: boolean;
    onMark(): void;
    onClose(): void;
    onReplayed(): void;
    /** Deletes the capture (asks first). */
    onDelete(): void;
    /** The `when` of the rule that answered, when the webhook still has it at that index and name. */
    ruleWhen?: Record<string, unknown> | undefined;
    /** Lists the captures that GET /logs parameters `params` match (a rule's `when`). */
    onShowRule?(params: URLSearchParams, label: string): void;
}

/** The service's public base URL (what /info's endpoint URLs start with). */
export function baseUrl(info: Info | null): string {
    const hook = info?.endpoints.webhook;
    return hook ? hook.slice(0, hook.indexOf('/webhook/')) : location.origin;
}

/** Whether replays can be re-signed: a signature provider is configured (/info lists it among the features). */
export function canResign(info: Info | null): boolean {
    if (!info) return false;
    return info.features.some((f) => f.startsWith('signature'));
}

/** The curl command of an entry, fetching the exact bytes of a structured JSON body first. */
export async function curlFor(entry: LogEntry, info: Info | null, authKey: string): Promise<string> {
    const model = bodyModel(entry);
    const base = baseUrl(info);
    let body = exactBytes(model);
    if (body === null && model.kind === 'json') body = await getPayload(entry.id);
    return toCurl({
        method: entry.method,
        url: `${base}${entry.requestUrl}`,
        headers: entry.headers,
        body,
        payloadUrl: `${base}/logs/${encodeURIComponent(entry.id)}/payload`,
        ...(authKey ? { authKey } : {}),
    });
}

/** "Answered by rule <name or #index>", with a link listing what the rule's `when` matches in that webhook's history. */
function AnsweredBy({ by, webhookId, when, onShow }: { by: NonNullable<LogEntry['answeredBy']>; webhookId: string; when: Record<string, unknown> | undefined; onShow: Props['onShowRule'] }): JSX.Element {
    const label = by.name ?? `#${by.index}`;
    const params = when ? whenParams(when) : undefined;
    params?.set('webhookId', webhookId);
    return (
        <>
            <dt>Answer</dt>
            <dd data-testid="answered-by">
                Answered by rule {label}
                {params && onShow && (
                    <>
                        {' · '}
                        <a href={withKey(`/logs?${params}`)} onClick={(e) => (e.preventDefault(), onShow(params, `rule ${label}`))}>list what it matches</a>
                    </>
                )}
            </dd>
        </>
    );
}

const responseText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v, null, 2) ?? '');

/** Everything about one capture, with copy-as-curl, diff marking and replay. */
export function Detail({ entry, info, authKey, marked, onMark, onClose, onReplayed, onDelete, ruleWhen, onShowRule }: Props): JSX.Element {
    const model = bodyModel(entry);
    const readable = readableBody(model);
    const sig = entry.signatureProvider;
    const meta = entry.meta && Object.keys(entry.meta).length ? entry.meta : null;
    return (
        <article class="detail" aria-label="Capture detail" data-id={entry.id}>
            <header class="detail-head">
                <button type="button" class="btn small back" onClick={onClose} aria-label="Close detail">←</button>
                <span class={`method m-${entry.method}`}>{entry.method}</span>
                <span class="status-big">{entry.statusCode}</span>
                <code class="path detail-path">{entry.requestUrl}</code>
            </header>
            <div class="actions">
                <CopyButton text={() => curlFor(entry, info, authKey)} label="Copy as curl" />
                <button type="button" class={marked ? 'btn small on' : 'btn small'} onClick={onMark} aria-pressed={marked}>
                    {marked ? 'Marked for diff' : 'Mark for diff'}
                </button>
                <a class="btn small" href={withKey(`/logs/${encodeURIComponent(entry.id)}`)} target="_blank" rel="noopener noreferrer">JSON</a>
                <button type="button" class="btn small danger" aria-label="Delete capture" title="Delete this capture (Delete key)" onClick={onDelete}>Delete</button>
            </div>
            <dl class="facts">
                <dt>Time</dt><dd>{new Date(entry.timestamp).toLocaleString()} <span class="muted">{entry.timestamp}</span></dd>
                <dt>Size</dt><dd>{formatSize(entry.size)} ({entry.size} bytes)</dd>
                <dt>Processing</dt><dd>{entry.processingTime} ms</dd>
                <dt>Content type</dt><dd>{entry.contentType || '—'}</dd>
                <dt>From</dt><dd>{entry.remoteIp}</dd>
                <dt>User agent</dt><dd>{entry.userAgent || '—'}</dd>
                <dt>Webhook</dt><dd>{entry.webhookId}</dd>
                <dt>Ids</dt><dd>{entry.id} <span class="muted">request {entry.requestId}</span></dd>
                {entry.answeredBy && <AnsweredBy by={entry.answeredBy} webhookId={entry.webhookId} when={ruleWhen} onShow={onShowRule} />}
                <dt>Signature</dt>
                <dd class="signature">
                    {sig === null ? 'not checked' : `${sig}: ${entry.signatureValid ? 'valid' : 'invalid'}`}
                    {entry.signatureError ? <span class="error"> {entry.signatureError}</span> : null}
                </dd>
            </dl>
            <h3>Headers</h3>
            <KvTable data={entry.headers} empty="No headers." />
            <h3>Query</h3>
            <KvTable data={entry.query} empty="No query parameters." />
            {entry.form ? (
                <>
                    <h3>Form</h3>
                    <FormView id={entry.id} form={entry.form} error={entry.formError} />
                </>
            ) : null}
            <h3>Body</h3>
            <BodyView id={entry.id} model={model} />
            <h3>Response sent</h3>
            <KvTable data={entry.responseHeaders} empty="No response headers." />
            {typeof entry.responseBody === 'string' ? <pre class="code small">{entry.responseBody}</pre> : <JsonView text={responseText(entry.responseBody)} />}
            {meta && (
                <>
                    <h3>Notes</h3>
                    <JsonView text={JSON.stringify(meta, null, 2)} />
                </>
            )}
            <h3>Replay</h3>
            <ReplayPanel key={entry.id} entry={entry} canResign={canResign(info)} bodyText={model.kind === 'binary' ? null : model.kind === 'text' ? model.text : readable.text} onDone={onReplayed} />
        </article>
    );
}
