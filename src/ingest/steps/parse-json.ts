import { isUtf8 } from 'node:buffer';
import { isJsonText } from '../../lib/json-text.js';
import type { Step } from '../context.js';

const looksLikeJson = (raw: Buffer): boolean => {
    for (const byte of raw) {
        // Skip leading JSON whitespace; the first real character decides.
        if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
        return byte === 0x7b || byte === 0x5b || byte === 0x22 || byte === 0x2d || (byte >= 0x30 && byte <= 0x39) || byte === 0x74 || byte === 0x66 || byte === 0x6e;
    }
    return false;
};

/**
 * Step 6: decides how the body is kept. Bytes that are not UTF-8 (or hold NUL) are binary;
 * text that is JSON becomes structured when `enableJSONParsing` is on. Malformed JSON stays
 * text, with the parse error recorded on the event. The value itself is built only when a later
 * step asks for it (`jsonBody`).
 */
export function createParseJson(enabled: boolean): Step {
    return (ctx) => {
        const { raw } = ctx.body;
        if (!raw || ctx.body.kind !== 'text') return;
        if (raw.includes(0) || !isUtf8(raw)) {
            ctx.body.kind = 'binary';
            return;
        }
        const declaredJson = /\bjson\b/i.test(String(ctx.req.headers['content-type'] ?? ''));
        if (!enabled || !(declaredJson || looksLikeJson(raw))) return;
        if (isJsonText(raw)) {
            ctx.body.kind = 'json';
            return;
        }
        if (!declaredJson) return;
        try {
            JSON.parse(raw.toString('utf8'));
        } catch (error) {
            ctx.meta.jsonParseError = (error as Error).message;
        }
    };
}
