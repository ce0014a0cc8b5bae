import type { JSX } from 'preact';
import { withKey } from '../api.js';
import { formatSize } from '../format.js';
import type { LogEntry } from '../types.js';

/** A form body's description, as the entry carries it. */
type Form = NonNullable<LogEntry['form']>;

/** Longest value shown in the table; the whole body is in the Body section and behind Download payload. */
const SHOWN = 2000;

/** A form body: its fields as a table, its files with name, size, type and a link to their exact bytes. */
export function FormView({ id, form, error }: { id: string; form: Form; error: string | undefined }): JSX.Element {
    const rows = Object.entries(form.fields).flatMap(([name, values]) => values.map((value) => [name, value] as const));
    return (
        <section class="form-view" aria-label="Form">
            {error ? <p class="error form-error">{error}</p> : null}
            {rows.length ? (
                <table class="kv form-fields">
                    <tbody>
                        {rows.map(([name, value], i) => (
                            <tr key={i}>
                                <th>{name}</th>
                                <td>{value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value}</td>
                            </tr>
                        ))}
                    </tbody>
                </table>
            ) : (
                <p class="muted">No fields.</p>
            )}
            {form.files.length ? (
                <table class="kv form-files">
                    <thead>
                        <tr><th>Field</th><th>File</th><th>Size</th><th>Type</th><th /></tr>
                    </thead>
                    <tbody>
                        {form.files.map((f) => (
                            <tr key={f.index}>
                                <td>{f.field}</td>
                                <td>{f.filename ?? <span class="muted">(a field over 1 MB)</span>}</td>
                                <td title={`${f.size} bytes, SHA-256 ${f.sha256}`}>{formatSize(f.size)}</td>
                                <td>{f.contentType}</td>
                                <td>
                                    <a class="btn small" href={withKey(`/logs/${encodeURIComponent(id)}/files/${f.index}`)} download>Download</a>
                                </td>
                            </tr>
                        ))}
                    </tbody>
                </table>
            ) : null}
        </section>
    );
}
