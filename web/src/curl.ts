// Copy-as-curl that sends the same bytes again. Bodies are quoted as bash $'..' strings, byte by byte;
// a body that a shell string cannot hold (a NUL byte) or that curl would read as a file name (a
// leading @) is piped in through printf with octal escapes, and an offloaded body is piped from the
// payload route.

/** What the command is built from. */
export interface CurlInput {
    method: string;
    /** Absolute URL with the query string. */
    url: string;
    headers: Record<string, unknown>;
    /** The body bytes; null when they are not in the page (offloaded): then `payloadUrl` is piped. */
    body: Uint8Array | null;
    payloadUrl?: string;
    /** The auth key the page was opened with, to stand in for a masked one. */
    authKey?: string;
}

const REDACTED = '[REDACTED]';
// Set by curl itself from the command (or meaningless on a new connection).
const TRANSPORT = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'expect', 'te', 'upgrade', 'proxy-connection']);
const enc = new TextEncoder();

/** Quotes bytes for bash: plain '..' when that is exact, else $'..' with \xHH escapes. */
export function shellQuote(value: string | Uint8Array): string {
    const bytes = typeof value === 'string' ? enc.encode(value) : value;
    let plain = true;
    for (const b of bytes) if (b < 0x20 || b > 0x7e || b === 0x27) plain = false;
    if (plain) return `'${new TextDecoder().decode(bytes)}'`;
    let out = "$'";
    for (const b of bytes) {
        if (b === 0x5c) out += '\\\\';
        else if (b === 0x27) out += "\\'";
        else if (b >= 0x20 && b <= 0x7e) out += String.fromCharCode(b);
        else out += `\\x${b.toString(16).padStart(2, '0')}`;
    }
    return `${out}'`;
}

/** A printf format that writes exactly `bytes` (octal escapes work in every POSIX printf). */
export function printfFormat(bytes: Uint8Array): string {
    let out = "'";
    for (const b of bytes) {
        if (b === 0x25) out += '%%';
        else if (b === 0x5c) out += '\\\\';
        else if (b >= 0x20 && b <= 0x7e && b !== 0x27) out += String.fromCharCode(b);
        else out += `\\${b.toString(8).padStart(3, '0')}`;
    }
    return `${out}'`;
}

const headerPairs = (headers: Record<string, unknown>): [string, string][] =>
    Object.entries(headers).flatMap(([name, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [name, String(x)]) : [[name, String(v)] as [string, string]]));

/** The curl command for a captured request. */
export function toCurl(input: CurlInput): string {
    const parts: string[] = ['curl'];
    const method = input.method.toUpperCase();
    const hasBody = input.body === null || input.body.length > 0;
    if (method === 'HEAD') parts.push('--head');
    else if (method !== 'GET' || hasBody) parts.push('-X', method);
    let url = input.url;
    if (input.authKey) url = url.replace(/([?&]key=)(%5BREDACTED%5D|\[REDACTED\])/i, `$1${encodeURIComponent(input.authKey)}`);
    parts.push(shellQuote(url));
    const seen = new Set<string>();
    for (const [name, value] of headerPairs(input.headers)) {
        const lower = name.toLowerCase();
        if (TRANSPORT.has(lower)) continue;
        if (value === REDACTED) {
            if (lower === 'authorization' && input.authKey) parts.push('-H', shellQuote(`Authorization: Bearer ${input.authKey}`));
            continue;
        }
        seen.add(lower);
        parts.push('-H', shellQuote(`${name}: ${value}`));
    }
    // curl adds these on its own; an empty value removes them so the request matches the capture.
    for (const own of ['accept', 'user-agent']) if (!seen.has(own)) parts.push('-H', shellQuote(`${own === 'accept' ? 'Accept' : 'User-Agent'}:`));
    if (hasBody && !seen.has('content-type')) parts.push('-H', shellQuote('Content-Type:'));
    if (!hasBody) return parts.join(' ');
    const body = input.body;
    if (body === null) {
        const auth = input.authKey ? ` -H ${shellQuote(`Authorization: Bearer ${input.authKey}`)}` : '';
        return `curl -sS${auth} ${shellQuote(input.payloadUrl ?? '')} | ${parts.join(' ')} --data-binary @-`;
    }
    if (body.includes(0) || body[0] === 0x40) return `printf ${printfFormat(body)} | ${parts.join(' ')} --data-binary @-`;
    return `${parts.join(' ')} --data-binary ${shellQuote(body)}`;
}
