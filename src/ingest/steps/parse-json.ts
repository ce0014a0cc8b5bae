import { isUtf8 } from 'node:buffer';
import { MAX_JSON_DEPTH, scanJsonText } from '../../lib/json-text.js';
import type { Step } from '../context.js';

/**
 * Step 6: decides how the body is kept. Bytes that are not UTF-8 (or hold NUL) are binary;
 * text that is JSON becomes structured when `enableJSONParsing` is on. Malformed JSON, and JSON
 * nested deeper than the read path can serve (MAX_JSON_DEPTH), stay text, with the reason recorded
 * on the event. The value itself is built only when a later step asks for it (`jsonBody`).
 */
export function createParseJson(enabled: boolean): Step {
    return (ctx) => {
        const { raw } = ctx.body;
        if (!raw || ctx.body.kind !== 'text') return;
        if (raw.includes(0) || !isUtf8(raw)) {
            ctx.body.kind = 'binary';
            return;
        }
        if (!enabled) return;
        // Any content type: a body that is JSON is kept as JSON (the scanner turns away other text
        // at its first byte). A parse error is recorded only for bodies that declared JSON.
        const verdict = scanJsonText(raw, MAX_JSON_DEPTH);
        if (verdict === 'json') {
            ctx.body.kind = 'json';
            return;
        }
        if (verdict === 'too-deep') {
            ctx.meta.jsonParseError = `JSON nested deeper than ${MAX_JSON_DEPTH} levels is stored as text`;
            return;
        }
        if (!/\bjson\b/i.test(String(ctx.req.headers['content-type'] ?? ''))) return;
        try {
            JSON.parse(raw.toString('utf8'));
        } catch (error) {
            ctx.meta.jsonParseError = (error as Error).message;
        }
    };
}
