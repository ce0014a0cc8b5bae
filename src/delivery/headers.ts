import { FRAMING_HEADERS, isFramingHeader } from '../lib/answer-headers.js';
import { MASKED_HEADERS } from '../lib/headers.js';

// Credential headers (MASKED_HEADERS) never leave the service on a replay or forward: their stored
// values are `[REDACTED]` placeholders under masking, and without masking they are the sender's secrets.

/**
 * Headers the HTTP client writes itself to frame the new request (target host, body length, hop-by-hop):
 * a user value for one would corrupt the request, so a replay edit may not set them either.
 */
export const CLIENT_FRAMING_HEADERS: ReadonlySet<string> = new Set(['host', ...FRAMING_HEADERS]);

/**
 * Headers the HTTP client owns for the new connection: the framing ones (and every `proxy-*`, see
 * isFramingHeader) plus other connection-level ones. `accept-encoding` goes too: answers are not
 * decompressed, so the target must not compress them.
 */
const TRANSPORT: ReadonlySet<string> = new Set([...CLIENT_FRAMING_HEADERS, 'expect', 'accept-encoding', 'http2-settings']);

/** Captured headers split into what is sent again and the names removed (in capture order). */
export function replayableHeaders(captured: Record<string, unknown>): { headers: Record<string, string>; stripped: string[] } {
    const headers: Record<string, string> = {};
    const stripped: string[] = [];
    for (const [name, value] of Object.entries(captured)) {
        const lower = name.toLowerCase();
        if (MASKED_HEADERS.has(lower) || TRANSPORT.has(lower) || isFramingHeader(lower) || lower.startsWith(':')) {
            stripped.push(name);
            continue;
        }
        if (typeof value === 'string') headers[name] = value;
        else if (Array.isArray(value)) headers[name] = value.map(String).join(', ');
    }
    return { headers, stripped };
}
