import type { JSX } from 'preact';

/** Name/value pairs (headers, query) as a table; arrays list each value on its own row. */
export function KvTable({ data, empty }: { data: Record<string, unknown>; empty: string }): JSX.Element {
    const rows = Object.entries(data).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : [[k, v] as const]));
    if (!rows.length) return <p class="muted">{empty}</p>;
    return (
        <table class="kv">
            <tbody>
                {rows.map(([k, v], i) => (
                    <tr key={i}>
                        <th>{k}</th>
                        <td>{typeof v === 'string' ? v : JSON.stringify(v)}</td>
                    </tr>
                ))}
            </tbody>
        </table>
    );
}
