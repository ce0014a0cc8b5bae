import Mustache from 'mustache';
import { pathTree, type PathNode } from './body-path.js';

// An answer's template (DECISIONS.md "Templates"): mustache's parser finds the `{{…}}` tags and their
// positions; only plain name tags are taken, and what a name may say is decided here. Nothing is
// rendered by mustache (template-render.ts renders the parts: JSON escaping, `json`, no lookups on
// objects), so no code runs and no prototype is walked.

/** Where a placeholder's value comes from. */
export type Source =
    | { kind: 'method' | 'path' | 'requestId' | 'webhookId' | 'now' | 'epoch' | 'uuid' }
    /** A query parameter, by its exact name. */
    | { kind: 'query'; name: string }
    /** A request header, by its lowercased name. */
    | { kind: 'header'; name: string }
    /** A dot path into a JSON body ([] is the whole body), and its slot in the template's body tree (-1: it never has a value). */
    | { kind: 'body'; path: string[]; slot: number };

/** One `{{…}}` of a template. */
export interface Placeholder {
    source: Source;
    /** `{{json PATH}}`: the value as JSON. */
    json: boolean;
    /** Whether it sits inside a JSON string of the text around it (read only when the answer is JSON). */
    inString: boolean;
}

/** A parsed template: its text pieces and placeholders, in order. */
export interface Template {
    parts: (string | Placeholder)[];
    /** Whether a placeholder reads the body (the body's text is then read once per request). */
    readsBody: boolean;
    /** The body placeholders' paths as one tree, walked once per request (body-path.ts), and how many slots it has. */
    bodyTree: PathNode;
    bodySlots: number;
}

/** Names that are JavaScript object machinery rather than data: a path through one never has a value. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** A template that cannot be used: what is wrong, and where (a 0-based character offset). */
export class TemplateError extends Error {
    constructor(message: string, readonly at: number) {
        super(message);
        this.name = 'TemplateError';
    }
}

const FIXED: Readonly<Record<string, Source['kind']>> = {
    'request.method': 'method',
    'request.path': 'path',
    'request.id': 'requestId',
    'webhook.id': 'webhookId',
    now: 'now',
    'now.epoch': 'epoch',
    uuid: 'uuid',
};

const writer = new Mustache.Writer();
// Each webhook's templates are compiled once and kept by its answer plan; the parser's own cache would only grow.
(writer as { templateCache?: unknown }).templateCache = undefined;

/** Whether `text` holds a tag at all (a text without one is sent as it is, and is no template). */
export const isTemplate = (text: string): boolean => text.includes('{{');

/** The placeholder a tag's words name; throws a TemplateError at `at` for anything else. */
function placeholderOf(words: string, at: number): Omit<Placeholder, 'inString'> {
    const [first = '', second, extra] = words.trim().split(/\s+/);
    const json = first === 'json' && second !== undefined;
    const name = json ? second : first;
    if ((json && extra !== undefined) || (!json && second !== undefined)) throw new TemplateError(`{{${words.trim()}}} has more words than a placeholder takes`, at);
    const fixed = FIXED[name];
    if (fixed) return { source: { kind: fixed } as Source, json };
    const keyed = /^request\.(query|headers|body)(?:\.(.+))?$/.exec(name);
    if (keyed?.[1] === 'body') {
        const path = keyed[2]?.split('.') ?? [];
        if (path.some((segment) => segment === '')) throw new TemplateError(`{{${name}}} has an empty path segment`, at);
        return { source: { kind: 'body', path, slot: -1 }, json };
    }
    if (keyed?.[2] !== undefined) {
        return { source: keyed[1] === 'query' ? { kind: 'query', name: keyed[2] } : { kind: 'header', name: keyed[2].toLowerCase() }, json };
    }
    throw new TemplateError(`{{${name}}} is not a placeholder: use request.method, request.path, request.query.NAME, request.headers.NAME, request.body.PATH, request.id, webhook.id, now, now.epoch or uuid (json PATH for a JSON value)`, at);
}

const KINDS: Readonly<Record<string, string>> = { '#': 'a section', '^': 'an inverted section', '/': 'a section end', '>': 'a partial', '&': 'an unescaped tag', '!': 'a comment', '=': 'a delimiter change' };

// A template saved is parsed twice (checked, then compiled into the answer plan), and mustache's
// parser takes ~17 ms for 64 KB: the latest ones are kept, a bounded number.
const recent = new Map<string, Template | TemplateError>();
const RECENT_MAX = 128;

/**
 * Parses a template; throws a TemplateError (message and offset) for a syntax error, a tag other
 * than a plain placeholder (sections, partials, comments, `{{{…}}}`, delimiter changes) or an
 * unknown placeholder.
 */
export function parseTemplate(text: string): Template {
    let parsed = recent.get(text);
    if (parsed === undefined) {
        try {
            parsed = parseUncached(text);
        } catch (error) {
            if (!(error instanceof TemplateError)) throw error;
            parsed = error;
        }
        if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
        recent.set(text, parsed);
    }
    if (parsed instanceof TemplateError) throw parsed;
    return parsed;
}

function parseUncached(text: string): Template {
    let tokens: [string, string, number, number][];
    try {
        tokens = writer.parse(text) as [string, string, number, number][];
    } catch (error) {
        const at = /at (\d+)/.exec(String((error as Error).message));
        throw new TemplateError(String((error as Error).message).replace(/ at \d+$/, ''), at ? Number(at[1]) : 0);
    }
    const parts: (string | Placeholder)[] = [];
    let inString = false;
    for (const [type, value, start] of tokens) {
        if (type === 'text') {
            parts.push(value);
            inString = stringStateAfter(value, inString);
        } else if (type === 'name') parts.push({ ...placeholderOf(value, start), inString });
        else throw new TemplateError(`${KINDS[type] ?? `a '${type}' tag`} is not supported: templates hold placeholders only`, start);
    }
    const paths: string[][] = [];
    for (const part of parts) {
        if (typeof part === 'string' || part.source.kind !== 'body' || part.source.path.some((s) => FORBIDDEN.has(s))) continue;
        part.source.slot = paths.length;
        paths.push(part.source.path);
    }
    return { parts, readsBody: parts.some((p) => typeof p !== 'string' && p.source.kind === 'body'), bodyTree: pathTree(paths), bodySlots: paths.length };
}

/** Whether, read as JSON, the text ends inside a string (a backslash escapes the next character). */
function stringStateAfter(text: string, inString: boolean): boolean {
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (inString && c === 0x5c) i++;
        else if (c === 0x22) inString = !inString;
    }
    return inString;
}

/**
 * Whether a template body is JSON when sent without a configured Content-Type: it is an object or
 * array once each placeholder stands for a value (an empty string inside a string, 0 outside).
 */
export function looksLikeJson(template: Template): boolean {
    const text = template.parts.map((p) => (typeof p === 'string' ? p : p.inString ? '' : '0')).join('').trim();
    if (!(text.startsWith('{') || text.startsWith('['))) return false;
    try {
        JSON.parse(text);
        return true;
    } catch {
        return false;
    }
}

/** Line and column (1-based) of a character offset, for messages. */
export function lineColumn(text: string, at: number): { line: number; column: number } {
    const before = text.slice(0, at);
    const line = before.split('\n').length;
    return { line, column: at - before.lastIndexOf('\n') };
}
