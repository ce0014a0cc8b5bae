import { isSqliteJson } from '../filters/json-walk.js';
import { formatAt, resolvePaths } from './body-path.js';
import type { Placeholder, Source, Template } from './template.js';

// Rendering a parsed template (template.ts) for one request: pure, no I/O. The values come from the
// request as it will be stored (masked headers and query, redacted body), so an answer, which is
// stored with the capture, never echoes a secret the capture itself does not keep.

/** What placeholders read of one request. Built once per request by the caller. */
export interface TemplateScope {
    readonly method: string;
    /** The sub-path after `/webhook/<id>`, as sent (no query string); '' for none. */
    readonly path: string;
    /** The capture's id (GET /logs/:id). */
    readonly requestId: string;
    readonly webhookId: string;
    /** ms since the epoch. */
    readonly now: number;
    /** One per request: every `{{uuid}}` of an answer is the same (made on first use). */
    uuid(): string;
    /** The query as stored: a name's value, or a list of them when repeated. */
    readonly query: Readonly<Record<string, unknown>>;
    /** The headers as stored (lowercase names). */
    readonly headers: Readonly<Record<string, unknown>>;
    /** The body's text as stored; null when it has none (empty, binary, offloaded). */
    bodyText(): string | null;
    /** Whether that text is JSON, when the caller already knows (else it is checked). */
    readonly bodyIsJson?: boolean | undefined;
}

/** The most characters a rendered body holds: a template may repeat a large value; the rest is cut. */
export const MAX_RENDERED_CHARS = 1_048_576;
/** The most characters of a rendered header value. */
export const MAX_HEADER_CHARS = 8192;

/** Names that are JavaScript object machinery rather than data: they render empty everywhere. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

const own = (map: Readonly<Record<string, unknown>>, name: string): unknown => (!FORBIDDEN.has(name) && Object.hasOwn(map, name) ? map[name] : undefined);

/** A JavaScript value (of the stored query or headers) as a placeholder writes it; undefined when missing. */
function format(v: unknown, json: boolean): string | undefined {
    if (v === undefined) return undefined;
    return typeof v === 'string' && !json ? v : (JSON.stringify(v) ?? 'null');
}

/** What one render reads of the body, once: its text, whether it is JSON, where each body slot's value starts. */
interface BodyMemo {
    text?: string | null;
    at?: number[] | undefined;
}

function bodyValue(source: Extract<Source, { kind: 'body' }>, template: Template, scope: TemplateScope, body: BodyMemo, json: boolean): string | undefined {
    if (body.text === undefined) {
        body.text = scope.bodyText();
        // A body that is not JSON has no paths; as a whole it is its text.
        if (body.text !== null && (scope.bodyIsJson ?? isSqliteJson(body.text))) body.at = resolvePaths(body.text, template.bodyTree, template.bodySlots);
    }
    if (body.text === null || source.slot < 0) return undefined;
    if (!body.at) return source.path.length === 0 ? format(body.text, json) : undefined;
    const at = body.at[source.slot]!;
    return at < 0 ? undefined : formatAt(body.text, at, json);
}

function lookup(p: Placeholder, template: Template, scope: TemplateScope, body: BodyMemo): string | undefined {
    const { source, json } = p;
    switch (source.kind) {
        case 'method':
            return format(scope.method, json);
        case 'path':
            return format(scope.path, json);
        case 'requestId':
            return format(scope.requestId, json);
        case 'webhookId':
            return format(scope.webhookId, json);
        case 'now':
            return format(new Date(scope.now).toISOString(), json);
        case 'epoch':
            return String(Math.floor(scope.now / 1000));
        case 'uuid':
            return format(scope.uuid(), json);
        case 'query':
            return format(own(scope.query, source.name), json);
        case 'header':
            return format(own(scope.headers, source.name), json);
        case 'body':
            return bodyValue(source, template, scope, body, json);
    }
}

/** What JSON.stringify escapes in a string: quote, backslash, control characters and lone surrogates. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** One placeholder's output: JSON-escaped inside a JSON answer, as it is elsewhere. */
function piece(p: Placeholder, value: string | undefined, jsonAnswer: boolean): string {
    const out = value ?? (p.json ? 'null' : '');
    // Inside a JSON answer a value stays string content (it cannot end a string or add members);
    // `json` outside a string writes the value itself.
    if (jsonAnswer && (p.inString || !p.json) && NEEDS_ESCAPE.test(out)) return JSON.stringify(out).slice(1, -1);
    return out;
}

/**
 * Renders a template for a request. `jsonAnswer`: the answer's Content-Type is JSON. At most
 * `limit` characters come out (the rest is cut); `cut` is then true.
 */
export function renderTemplate(template: Template, scope: TemplateScope, jsonAnswer: boolean, limit = MAX_RENDERED_CHARS): { text: string; cut: boolean } {
    const body: BodyMemo = {};
    let text = '';
    for (const part of template.parts) {
        text += typeof part === 'string' ? part : piece(part, lookup(part, template, scope, body), jsonAnswer);
        if (text.length > limit) return { text: text.slice(0, limit), cut: true };
    }
    return { text, cut: false };
}

/**
 * A rendered header value: the characters Node refuses in a header (CR, LF, NUL and the other
 * controls but tab, and anything past U+00FF) are dropped, so a request's bytes can neither split
 * the answer's head nor make the answer fail; at most MAX_HEADER_CHARS.
 */
export function renderHeader(template: Template, scope: TemplateScope): string {
    const { text } = renderTemplate(template, scope, false, MAX_HEADER_CHARS * 4);
    return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').slice(0, MAX_HEADER_CHARS);
}
