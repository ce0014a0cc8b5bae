// `Content-Disposition: attachment` with a filename a sender chose (RFC 6266): a plain ASCII
// fallback in `filename`, for clients that know no better, and the exact name in `filename*`
// (RFC 8187: UTF-8, percent-encoded), which every current browser prefers. Nothing a sender puts
// in the name (quotes, CR/LF, path separators, non-ASCII) can break out of the header.

/** Characters RFC 8187 lets through unencoded (attr-char); the rest of the UTF-8 bytes are %XX. */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

/** `name` percent-encoded as RFC 8187's ext-value wants it. */
function extValue(name: string): string {
    let out = '';
    for (const byte of Buffer.from(name, 'utf8')) {
        const c = String.fromCharCode(byte);
        out += byte < 0x80 && ATTR_CHAR.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    return out;
}

/** The ASCII fallback: printable ASCII kept, but quotes, backslashes, slashes and `%`; the rest `_`. */
function asciiFallback(name: string): string {
    const plain = name.replace(/[^\x20-\x7e]|["\\/%]/g, '_').trim();
    return plain === '' ? 'file' : plain;
}

/** The header value for a download named `name`. */
export function attachment(name: string): string {
    // A path a sender sent (C:\fakepath\x.pdf, ../x) is cut to its last segment.
    const base = name.split(/[/\\]/).pop() ?? '';
    const safe = base === '' || base === '.' || base === '..' ? 'file' : base;
    return `attachment; filename="${asciiFallback(safe)}"; filename*=UTF-8''${extValue(safe)}`;
}
