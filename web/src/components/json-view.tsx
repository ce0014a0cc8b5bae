import type { JSX } from 'preact';

// Tokens of pretty-printed JSON. Every token becomes a text node inside a span: captured content is
// never parsed as HTML.
const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(?:true|false)\b|\bnull\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
// Highlighting costs a span per token; past this size the text is shown plain.
const MAX_HIGHLIGHT = 200_000;

/** Pretty JSON text with keys, strings, numbers and literals coloured. */
export function JsonView({ text }: { text: string }): JSX.Element {
    if (text.length > MAX_HIGHLIGHT) return <pre class="code">{text}</pre>;
    const out: (string | JSX.Element)[] = [];
    let last = 0;
    let n = 0;
    for (const m of text.matchAll(TOKEN)) {
        const at = m.index;
        if (at > last) out.push(text.slice(last, at));
        const cls = m[1] !== undefined ? (m[2] !== undefined ? 'j-key' : 'j-str') : m[0] === 'null' ? 'j-null' : m[0] === 'true' || m[0] === 'false' ? 'j-bool' : 'j-num';
        out.push(<span key={n++} class={cls}>{m[1] ?? m[0]}</span>);
        if (m[2] !== undefined) out.push(m[2]);
        last = at + m[0].length;
    }
    if (last < text.length) out.push(text.slice(last));
    return <pre class="code">{out}</pre>;
}
