import type { OutgoingHttpHeaders } from 'node:http';
import type { LogEntry } from '../api/capture.js';
import { isFramingHeader } from '../lib/answer-headers.js';
import { REDACTED } from '../lib/headers.js';

/** What a delivery reads of a capture: a /log-stream frame's entry, or GET /logs/:id's. */
export type Capture = Pick<LogEntry, 'id' | 'webhookId' | 'timestamp' | 'method' | 'requestUrl' | 'headers' | 'size' | 'rawBody'>;

/**
 * Captured headers the local request does not repeat, besides the framing and hop-by-hop ones
 * (isFramingHeader): `host` names the service, not the local server; the body goes out as stored,
 * so the local server must not be told it may compress its answer for a client that cannot know;
 * `expect: 100-continue` would wait on an interim answer; HTTP/2 pseudo and settings headers do not
 * exist in HTTP/1.1.
 */
const NOT_REPEATED = new Set(['host', 'accept-encoding', 'expect', 'http2-settings']);

/** The headers a capture is delivered with (before the body's length and the marker headers). */
export function deliveryHeaders(captured: Readonly<Record<string, unknown>>): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(captured)) {
        const lower = name.toLowerCase();
        if (NOT_REPEATED.has(lower) || isFramingHeader(lower) || lower.startsWith(':')) continue;
        // A masked value is a placeholder: the real one was never kept, so none is sent.
        if (value === REDACTED) continue;
        if (typeof value === 'string') out[name] = value;
        else if (Array.isArray(value)) out[name] = value.filter((v) => v !== REDACTED).map(String);
        else if (value !== null && value !== undefined) out[name] = String(value);
    }
    return out;
}

/** Where a capture goes: the request target (path and query, as sent) and the absolute URL it makes. */
export interface DeliveryTarget {
    path: string;
    url: string;
}

/**
 * The local target of a capture: the local URL's path joined with the capture's sub-path after
 * `/webhook/<id>`, then the local URL's own query and the captured query (as sent, in order,
 * escapes untouched) without the `key` parameter and without parameters whose value was masked.
 */
export function deliveryTarget(local: URL, requestUrl: string): DeliveryTarget {
    // A proxy may have sent the absolute form (`http://host/webhook/…`); the path is what counts.
    const target = requestUrl.replace(/^[a-z][a-z\d+.-]*:\/\/[^/?]*/i, '');
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const query = q < 0 ? '' : target.slice(q + 1);
    const sub = /^\/webhook\/[^/]*(\/.*)?$/.exec(path)?.[1] ?? '';
    const base = sub === '' ? local.pathname : `${local.pathname.replace(/\/+$/, '')}${sub}`;
    const kept = query.split('&').filter((piece) => piece !== '' && !isKeyParam(piece) && !isMasked(piece));
    const search = [local.search.replace(/^\?/, ''), ...kept].filter(Boolean).join('&');
    const full = search === '' ? base : `${base}?${search}`;
    return { path: full, url: `${local.origin}${full}` };
}

/**
 * Whether a raw query piece's value is the placeholder masking left (`token=%5BREDACTED%5D`, the Apify
 * token, always masked): the real value was never kept, so the parameter is not sent, as a masked header is not.
 */
function isMasked(piece: string): boolean {
    const eq = piece.indexOf('=');
    if (eq < 0) return false;
    try {
        return decodeURIComponent(piece.slice(eq + 1).replace(/\+/g, ' ')) === REDACTED;
    } catch {
        return false;
    }
}

/** Whether a raw query piece (`name=value`) is the `key` parameter, however its name is escaped. */
function isKeyParam(piece: string): boolean {
    const eq = piece.indexOf('=');
    const raw = eq < 0 ? piece : piece.slice(0, eq);
    try {
        return decodeURIComponent(raw.replace(/\+/g, ' ')) === 'key';
    } catch {
        return false;
    }
}
