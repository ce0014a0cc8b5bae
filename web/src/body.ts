import { fromBase64 } from './bytes.js';
import type { LogEntry } from './types.js';

/** A captured body as the page can show it. */
export type BodyModel =
    | { kind: 'empty' }
    /** Stored structured (enableJSONParsing): the exact bytes come from the payload route. */
    | { kind: 'json'; value: unknown }
    | { kind: 'text'; text: string }
    | { kind: 'binary'; bytes: Uint8Array }
    /** Not in the entry (offloaded, or cut from a live frame): only the payload route has it. */
    | { kind: 'external'; size: number };

/**
 * Offloaded bodies read as `{offloaded, key, size}` and bodies cut from live frames as
 * `{truncated, size, payloadUrl}`. A captured JSON body could look the same, so the marker counts only
 * when its size is the event's size and too large to have been inlined.
 */
function isMarker(e: LogEntry): boolean {
    const b = e.body as { offloaded?: unknown; truncated?: unknown; size?: unknown } | null;
    if (!b || typeof b !== 'object' || Array.isArray(b)) return false;
    return (b.offloaded === true || b.truncated === true) && b.size === e.size && e.size > 64 * 1024;
}

/** How to show an entry's body. */
export function bodyModel(e: LogEntry): BodyModel {
    if (isMarker(e)) return { kind: 'external', size: e.size };
    if (e.bodyEncoding === 'base64' && typeof e.body === 'string') return { kind: 'binary', bytes: fromBase64(e.body) };
    if (typeof e.body === 'string') return e.body === '' ? { kind: 'empty' } : { kind: 'text', text: e.body };
    return { kind: 'json', value: e.body };
}

/** Whether the entry lacks its body because a live frame cut it (fetching /logs/:id brings it). */
export function isCut(e: LogEntry): boolean {
    return isMarker(e) && (e.body as { truncated?: unknown }).truncated === true;
}

/** The exact body bytes when the entry holds them; null when they must come from the payload route. */
export function exactBytes(m: BodyModel): Uint8Array | null {
    switch (m.kind) {
        case 'empty':
            return new Uint8Array(0);
        case 'text':
            return new TextEncoder().encode(m.text);
        case 'binary':
            return m.bytes;
        default:
            return null;
    }
}

/** Text of a body for reading and diffing: JSON pretty-printed (also JSON sent as text). */
export function readableBody(m: BodyModel): { text: string; json: boolean } {
    switch (m.kind) {
        case 'empty':
            return { text: '', json: false };
        case 'json':
            return { text: JSON.stringify(m.value, null, 2) ?? '', json: true };
        case 'text':
            try {
                const t = m.text.trimStart();
                if (t.startsWith('{') || t.startsWith('[')) return { text: JSON.stringify(JSON.parse(m.text), null, 2), json: true };
            } catch {
                // text that only looks like JSON
            }
            return { text: m.text, json: false };
        case 'binary':
            return { text: '', json: false };
        case 'external':
            return { text: `(${m.size} bytes, stored as a payload)`, json: false };
    }
}
