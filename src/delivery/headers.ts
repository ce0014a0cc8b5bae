/**
 * Credential headers that never leave the service on a replay or forward: their stored values are
 * `[REDACTED]` placeholders under masking, and without masking they are the sender's secrets.
 * The same names ingest masks (src/ingest/record.ts).
 */
const MASKED = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

/**
 * Headers the HTTP client owns for the new connection (framing, hop-by-hop, target host).
 * `accept-encoding` goes too: answers are not decompressed, so the target must not compress them.
 */
const TRANSPORT = new Set([
    'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer',
    'expect', 'accept-encoding', 'http2-settings',
]);

/** Captured headers split into what is sent again and the names removed (in capture order). */
export function replayableHeaders(captured: Record<string, unknown>): { headers: Record<string, string>; stripped: string[] } {
    const headers: Record<string, string> = {};
    const stripped: string[] = [];
    for (const [name, value] of Object.entries(captured)) {
        const lower = name.toLowerCase();
        if (MASKED.has(lower) || TRANSPORT.has(lower) || lower.startsWith(':')) {
            stripped.push(name);
            continue;
        }
        if (typeof value === 'string') headers[name] = value;
        else if (Array.isArray(value)) headers[name] = value.map(String).join(', ');
    }
    return { headers, stripped };
}

/** Sets a header, replacing any existing one of the same name in another letter case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
    deleteHeader(headers, name);
    headers[name] = value;
}

/** Removes a header whatever its letter case. */
export function deleteHeader(headers: Record<string, string>, name: string): void {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) delete headers[key];
}

/** Whether `headers` has `name` in any letter case. */
export function hasHeaderNamed(headers: Record<string, string>, name: string): boolean {
    const lower = name.toLowerCase();
    return Object.keys(headers).some((k) => k.toLowerCase() === lower);
}
