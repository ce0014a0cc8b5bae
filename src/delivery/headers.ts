import { MASKED_HEADERS } from '../lib/headers.js';

// Credential headers (MASKED_HEADERS) never leave the service on a replay or forward: their stored
// values are `[REDACTED]` placeholders under masking, and without masking they are the sender's secrets.

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
        if (MASKED_HEADERS.has(lower) || TRANSPORT.has(lower) || lower.startsWith(':')) {
            stripped.push(name);
            continue;
        }
        if (typeof value === 'string') headers[name] = value;
        else if (Array.isArray(value)) headers[name] = value.map(String).join(', ');
    }
    return { headers, stripped };
}
