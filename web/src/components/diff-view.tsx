import type { JSX } from 'preact';
import { bodyModel, readableBody } from '../body.js';
import { hexDump } from '../bytes.js';
import { diffFields, diffLines } from '../diff.js';
import type { LogEntry } from '../types.js';

const bodyText = (e: LogEntry): string => {
    const m = bodyModel(e);
    return m.kind === 'binary' ? hexDump(m.bytes) : readableBody(m).text;
};

function FieldDiff({ title, a, b }: { title: string; a: Record<string, unknown>; b: Record<string, unknown> }): JSX.Element {
    const rows = diffFields(a, b);
    return (
        <>
            <h3>{title} <span class="muted">({rows.filter((r) => r.differs).length} differ)</span></h3>
            <table class="diff-table">
                <tbody>
                    {rows.map((r) => (
                        <tr key={r.name} class={r.differs ? 'differs' : ''}>
                            <th>{r.name}</th>
                            <td class={r.left === null ? 'absent' : ''}>{r.left ?? '(absent)'}</td>
                            <td class={r.right === null ? 'absent' : ''}>{r.right ?? '(absent)'}</td>
                        </tr>
                    ))}
                </tbody>
            </table>
        </>
    );
}

/** Two captures side by side: summary, headers, query and body, with differences marked. */
export function DiffView({ a, b, onClose }: { a: LogEntry; b: LogEntry; onClose(): void }): JSX.Element {
    const rows = diffLines(bodyText(a), bodyText(b));
    const changed = rows.filter((r) => r.kind !== 'same').length;
    const summary = (e: LogEntry): Record<string, unknown> => ({ method: e.method, url: e.requestUrl, status: e.statusCode, size: e.size, time: e.timestamp, id: e.id });
    return (
        <article class="detail diff" aria-label="Diff">
            <header class="detail-head">
                <button type="button" class="btn small back" onClick={onClose} aria-label="Close diff">←</button>
                <strong>Diff</strong>
                <span class="muted">{a.id} ↔ {b.id}</span>
            </header>
            <FieldDiff title="Request" a={summary(a)} b={summary(b)} />
            <FieldDiff title="Headers" a={a.headers} b={b.headers} />
            <FieldDiff title="Query" a={a.query} b={b.query} />
            <h3>Body <span class="muted">({changed} lines differ)</span></h3>
            <table class="diff-lines" aria-label="Body diff">
                <tbody>
                    {rows.map((r, i) => (
                        <tr key={i} class={`d-${r.kind}`}>
                            <td class="l"><pre>{r.left ?? ''}</pre></td>
                            <td class="r"><pre>{r.right ?? ''}</pre></td>
                        </tr>
                    ))}
                </tbody>
            </table>
        </article>
    );
}
