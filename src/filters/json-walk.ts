import { MAX_JSON_DEPTH, scanJsonText } from '../lib/json-text.js';

// Reading a stored JSON text as SQLite's JSON functions read it, without building it: JSON.parse
// keeps the last of duplicated names and rounds big integers, SQLite does neither. The walk reads
// the text itself; every function below but isSqliteJson expects text isSqliteJson accepted.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * SQLite's json_valid(): one JSON text as RFC 8259 writes it (what JSON.parse accepts), with
 * containers nested at most 1,000 deep.
 */
export function isSqliteJson(text: string): boolean {
    return scanJsonText(Buffer.from(text, 'utf8'), MAX_JSON_DEPTH) === 'json';
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

const isDelimiter = (c: number): boolean => isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d;

/** The index of the first character at or after `i` that is not whitespace. */
export function skipSpace(s: string, i: number): number {
    while (isSpace(s.charCodeAt(i))) i++;
    return i;
}

/** The index just past the string whose opening quote is at `i`. */
function stringEnd(s: string, i: number): number {
    for (i++; ; i++) {
        const c = s.charCodeAt(i);
        if (c === QUOTE) return i + 1;
        if (c === BACKSLASH) i++;
    }
}

/** The index just past the value starting at `i`. */
export function valueEnd(s: string, i: number): number {
    const c = s.charCodeAt(i);
    if (c === QUOTE) return stringEnd(s, i);
    if (c !== 0x7b && c !== 0x5b) {
        // A number or a literal: it ends where a delimiter or whitespace (or the text) does.
        while (i < s.length && !isDelimiter(s.charCodeAt(i))) i++;
        return i;
    }
    let depth = 0;
    for (; ; i++) {
        const d = s.charCodeAt(i);
        if (d === QUOTE) i = stringEnd(s, i) - 1;
        else if (d === 0x7b || d === 0x5b) depth++;
        else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1;
    }
}

/** The decoded string whose opening quote is at `i` (\uXXXX escapes as UTF-16 units, so a pair makes one character). */
export function decodeString(s: string, i: number): string {
    const end = stringEnd(s, i);
    const raw = s.slice(i + 1, end - 1);
    if (!raw.includes('\\')) return raw;
    return raw.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : ESCAPES[e]!));
}

/** The members of the object at `i`, in order, duplicates included: each name (decoded) and where its value starts. */
export function* members(s: string, i: number): Generator<{ name: string; at: number }> {
    i = skipSpace(s, i + 1);
    if (s.charCodeAt(i) === 0x7d) return;
    for (;;) {
        const name = decodeString(s, i);
        const at = skipSpace(s, skipSpace(s, stringEnd(s, i)) + 1);
        yield { name, at };
        i = skipSpace(s, valueEnd(s, at));
        if (s.charCodeAt(i) === 0x7d) return;
        i = skipSpace(s, i + 1);
    }
}

/** Where each element of the array at `i` starts, in order. */
export function* elements(s: string, i: number): Generator<number> {
    i = skipSpace(s, i + 1);
    if (s.charCodeAt(i) === 0x5d) return;
    for (;;) {
        yield i;
        i = skipSpace(s, valueEnd(s, i));
        if (s.charCodeAt(i) === 0x5d) return;
        i = skipSpace(s, i + 1);
    }
}

/** The container at `i` as SQLite renders it: the text as written, without whitespace outside strings. */
export function minified(s: string, i: number): string {
    const end = valueEnd(s, i);
    let out = '';
    let from = i;
    for (let k = i; k < end; k++) {
        const c = s.charCodeAt(k);
        if (c === QUOTE) k = stringEnd(s, k) - 1;
        else if (isSpace(c)) {
            out += s.slice(from, k);
            from = k + 1;
        }
    }
    return out + s.slice(from, end);
}
