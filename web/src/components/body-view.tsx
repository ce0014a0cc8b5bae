import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getPayload, withKey } from '../api.js';
import { exactBytes, readableBody, type BodyModel } from '../body.js';
import { hexDump } from '../bytes.js';
import { formatSize } from '../format.js';
import { JsonView } from './json-view.js';

type Mode = 'pretty' | 'raw' | 'hex';

/** The request body: pretty JSON, raw text or hex, and a download link to the stored payload. */
export function BodyView({ id, model }: { id: string; model: BodyModel }): JSX.Element {
    const readable = readableBody(model);
    const initial: Mode = model.kind === 'binary' ? 'hex' : readable.json ? 'pretty' : 'raw';
    const [mode, setMode] = useState<Mode>(initial);
    const [fetched, setFetched] = useState<Uint8Array | null>(null);
    const [error, setError] = useState('');
    useEffect(() => {
        setMode(initial);
        setFetched(null);
        setError('');
    }, [id]);
    const bytes = exactBytes(model) ?? fetched;
    // Raw and hex of a structured JSON body need the bytes as received: they come from /payload.
    useEffect(() => {
        if (mode === 'pretty' || bytes || model.kind !== 'json') return;
        getPayload(id).then(setFetched, (e: unknown) => setError(String(e)));
    }, [id, mode, bytes === null]);
    const download = <a class="btn small" href={withKey(`/logs/${encodeURIComponent(id)}/payload`)} download={`${id}.body`}>Download payload</a>;
    if (model.kind === 'empty') return <p class="muted">No body.</p>;
    if (model.kind === 'external') {
        return <p class="muted">{`The body (${formatSize(model.size)}) is stored as a payload and not shown inline. `}{download}</p>;
    }
    const modes: Mode[] = model.kind === 'binary' ? ['hex', 'raw'] : readable.json ? ['pretty', 'raw', 'hex'] : ['raw', 'hex'];
    let view: JSX.Element;
    if (error) view = <p class="error">{error}</p>;
    else if (mode === 'pretty') view = <JsonView text={readable.text} />;
    else if (!bytes) view = <p class="muted">Loading…</p>;
    else if (mode === 'hex') view = <pre class="code hex">{hexDump(bytes)}</pre>;
    else view = <pre class="code">{new TextDecoder().decode(bytes)}</pre>;
    return (
        <div class="body-view">
            <div class="seg" role="tablist" aria-label="Body view">
                {modes.map((m) => (
                    <button key={m} type="button" role="tab" aria-selected={mode === m} class={mode === m ? 'on' : ''} onClick={() => setMode(m)}>
                        {m === 'pretty' ? 'Pretty' : m === 'raw' ? 'Raw' : 'Hex'}
                    </button>
                ))}
                {download}
            </div>
            {view}
        </div>
    );
}
