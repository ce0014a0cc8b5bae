import { scanJsonText } from '../../lib/json-text.js';
import type { BodyKind } from '../types.js';

// The keys of a body: every (path, value) a keyed filter `body[path]=value` can match, written at
// ingest into events.body_keys, which a GIN index serves (query/keyed.ts). They follow the rules of
// the JSON walk (query/keyed-functions.ts), which reproduces SQLite's json_each:
// - an object member is reached by its name, the FIRST member of that name only;
// - an array element by its index, and an array also matches where any element does: every
//   element's forms are keys at the array's own path too;
// - a string, true, false and null match their text; an array or object inside an array its
//   minified text;
// - a number as SQLite compares it: a JSON integer within 64 bits exactly ('i', the integer), any
//   other number as a double ('r', as JavaScript prints it), so the value asked for gives both forms.
// A key is a 53-bit hash (keyHash) of the text `step,step,...,tag:value` (a step is a member name
// as a JSON string or an index as digits, the value as a JSON string): 8 bytes whatever the path and
// value. The full texts made a 1 KB body's keys 2.3 KB, and PostgreSQL ingest (fsync on) fell from
// ~60 % to ~33 % of SQLite mode under the extra WAL (bench/README.md). Two different texts share a
// hash with probability 2^-53: a keyed filter then also lists a body that does not hold the value.
// A body the keys cannot describe exactly gets none (NULL): the query then walks its text.

/** Most keys a body gets; a body with more is walked when queried. */
const MAX_KEYS = 2000;
/** Bodies longer than this (bytes) are walked when queried, not keyed at ingest. */
const MAX_BYTES = 256 * 1024;

/** A form a value matches: the tag and the text the walk compares. */
type Form = readonly [tag: 's' | 'i' | 'r', text: string];

/** The text of one path step in a key, with the comma that ends it: a path is its steps' texts in a row. */
export const stepText = (step: string | number): string => `${typeof step === 'number' ? String(step) : JSON.stringify(step)},`;

/** The key of a value's form at a path (its steps' texts, stepText). */
export const keyOf = (path: string, [tag, text]: Form): number => keyHash(extended(null, path), tag, text);

// The two lanes of a key's hash, fed in place (no closure or pair allocated per character run).
let lane1 = 0;
let lane2 = 0;

function feed(text: string): void {
    let h1 = lane1;
    let h2 = lane2;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 2654435761);
        h2 = Math.imul(h2 ^ c, 1597334677);
    }
    lane1 = h1;
    lane2 = h2;
}

/** A path's hash so far (the lanes after its steps' texts); null for the document itself. */
type PathHash = { readonly a: number; readonly b: number } | null;

/** The path `at` followed by a step's text (stepText). */
function extended(at: PathHash, step: string): PathHash {
    lane1 = at ? at.a : 0xdeadbeef;
    lane2 = at ? at.b : 0x41c6ce57;
    feed(step);
    return { a: lane1, b: lane2 };
}

/**
 * The key of (path, tag, text): a 53-bit hash of the path's steps' texts + `tag` + ':' + `text` (the
 * text compared), read as one text: two 32-bit multiplicative lanes mixed at the end (a double holds
 * 53 bits exactly). Unambiguous: each step is a JSON string or digits and ends with a comma, a tag is
 * one letter, and the text comes last. A path's lanes are kept, so a body hashes each step once.
 */
function keyHash(at: PathHash, tag: Form[0], text: string): number {
    lane1 = at ? at.a : 0xdeadbeef;
    lane2 = at ? at.b : 0x41c6ce57;
    feed(tag);
    feed(':');
    feed(text);
    let h1 = lane1;
    let h2 = lane2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The forms a JSON number written as `text` matches, or undefined when a double cannot say it
 * exactly as PostgreSQL's numeric does (out of range, or so small it is near underflow).
 */
export function numberForms(text: string): Form[] | undefined {
    if (/^-?\d+$/.test(text)) {
        // Up to 15 digits a double holds the integer exactly (and prints -0 as 0).
        if (text.length <= 15) return [['i', String(Number(text))]];
        const whole = BigInt(text);
        if (whole >= INT64_MIN && whole <= INT64_MAX) return [['i', whole.toString()]];
    }
    const x = Number(text);
    if (!Number.isFinite(x) || Math.abs(x) >= 1e308 || (x !== 0 && Math.abs(x) < 1e-300)) return undefined;
    return [['r', String(x)]];
}

/** The forms a value asked for matches: its text, and for a number its double and (when whole) its integer. */
export function valueForms(value: string, number: number | null): Form[] {
    const forms: Form[] = [['s', value]];
    if (number !== null) {
        forms.push(['r', String(number)]);
        if (Number.isInteger(number)) forms.push(['i', BigInt(number).toString()]);
    }
    return forms;
}

class Unkeyed extends Error {}
const unkeyed = (): never => {
    throw new Unkeyed();
};

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** In a string, a surrogate code unit outside a pair (a pair reads as one code point under /u). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A string literal of the body as JSON.stringify writes the text it means: the literal itself when it
 * has no escape (it then holds no quote, backslash or control character, and JSON.stringify escapes
 * nothing else in text without lone surrogates). Text PostgreSQL cannot hold as the walk does (NUL,
 * a lone surrogate) is unkeyed.
 */
function encoded(literal: string): string {
    return literal.includes('\\') ? JSON.stringify(decoded(literal)) : literal;
}

/** The text a string literal of the body means (unkeyed as encoded says). */
function decoded(literal: string): string {
    if (!literal.includes('\\')) return literal.slice(1, -1);
    const text = JSON.parse(literal) as string;
    if (text.includes('\u0000') || LONE_SURROGATE.test(text)) unkeyed();
    return text;
}

/** Reads one JSON text already known valid, collecting keys. */
class Reader {
    private i = 0;
    /** The keys (an array holding the same one twice repeats it: harmless in the index). */
    readonly keys: number[] = [];

    constructor(private readonly s: string) {}

    private add(path: PathHash, tag: Form[0], text: string): void {
        // No filter names the document itself (a path has a step at least).
        if (path === null) return;
        if (this.keys.push(keyHash(path, tag, text)) > MAX_KEYS) unkeyed();
    }

    private space(): void {
        while (isSpace(this.s.charCodeAt(this.i))) this.i++;
    }

    private string(): string {
        const start = this.i;
        let i = start + 1;
        for (;;) {
            const c = this.s.charCodeAt(i);
            if (c === 0x22) break;
            i += c === 0x5c ? 2 : 1;
        }
        this.i = i + 1;
        return this.s.slice(start, this.i);
    }

    /** The value at this.i, its keys added at `path`; also its forms at `parent` when an array holds it. */
    value(path: PathHash, parent?: PathHash): void {
        this.space();
        const start = this.i;
        const c = this.s.charCodeAt(start);
        if (c === 0x7b || c === 0x5b) {
            this.i++;
            this.space();
            if (c === 0x7b) this.object(path);
            else this.array(path);
            if (parent !== undefined) this.add(parent, 's', minified(this.s, start, this.i));
            return;
        }
        let tag: Form[0] = 's';
        let text: string;
        if (c === 0x22) text = decoded(this.string());
        else if (c === 0x74 || c === 0x66 || c === 0x6e) {
            const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
            this.i += word.length;
            text = word;
        } else {
            this.scalarEnd();
            const [form] = numberForms(this.s.slice(start, this.i)) ?? unkeyed();
            tag = form![0];
            text = form![1];
        }
        this.add(path, tag, text);
        if (parent !== undefined) this.add(parent, tag, text);
    }

    private object(path: PathHash): void {
        const seen: string[] = [];
        if (this.s.charCodeAt(this.i) === 0x7d) {
            this.i++;
            return;
        }
        for (;;) {
            this.space();
            // The name as JSON.stringify writes it, which is also the step's text (stepText).
            const name = encoded(this.string());
            this.space();
            this.i++; // the colon
            // A later member of the same name is never reached: its value is read for nothing.
            const first = !seen.includes(name);
            if (first) seen.push(name);
            if (first) this.value(extended(path, `${name},`));
            else this.skip();
            this.space();
            if (this.s.charCodeAt(this.i++) === 0x7d) return;
        }
    }

    private array(path: PathHash): void {
        if (this.s.charCodeAt(this.i) === 0x5d) {
            this.i++;
            return;
        }
        for (let index = 0; ; index++) {
            this.value(extended(path, `${index},`), path);
            this.space();
            if (this.s.charCodeAt(this.i++) === 0x5d) return;
        }
    }

    /** Moves past the value at this.i, adding nothing. */
    skip(): void {
        this.space();
        const c = this.s.charCodeAt(this.i);
        if (c === 0x22) {
            this.string();
        } else if (c === 0x7b || c === 0x5b) {
            let depth = 0;
            do {
                const d = this.s.charCodeAt(this.i);
                if (d === 0x22) {
                    this.string();
                    continue;
                }
                if (d === 0x7b || d === 0x5b) depth++;
                else if (d === 0x7d || d === 0x5d) depth--;
                this.i++;
            } while (depth > 0);
        } else {
            this.scalarEnd();
        }
    }

    /** Moves past a number or a word. */
    private scalarEnd(): void {
        for (;;) {
            const c = this.s.charCodeAt(this.i);
            if (Number.isNaN(c) || isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d) return;
            this.i++;
        }
    }
}

/** The text of an array or object (s[start, end)) without whitespace outside its strings (as the walk renders one). */
function minified(s: string, start: number, end: number): string {
    let out = '';
    let from = start;
    for (let i = start; i < end; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x22) {
            // Past the string: its escapes are two characters each.
            for (i++; s.charCodeAt(i) !== 0x22; i++) if (s.charCodeAt(i) === 0x5c) i++;
        } else if (isSpace(c)) {
            out += s.slice(from, i);
            while (i + 1 < end && isSpace(s.charCodeAt(i + 1))) i++;
            from = i + 1;
        }
    }
    return from === start ? s.slice(start, end) : out + s.slice(from, end);
}

/**
 * The keys of a stored body (see above): none for a body that is not JSON or has no text in the row
 * (binary, empty, offloaded), and null for one the keys cannot describe exactly (walked when queried).
 */
export function bodyKeys(kind: BodyKind, raw: Uint8Array | null): number[] | null {
    if (!raw || raw.byteLength === 0 || (kind !== 'json' && kind !== 'text')) return [];
    if (raw.byteLength > MAX_BYTES) return null;
    if (kind === 'text') {
        const verdict = scanJsonText(raw);
        if (verdict === 'invalid') return [];
        if (verdict === 'too-deep') return null;
    }
    const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
    const reader = new Reader(text);
    try {
        reader.value(null);
    } catch (error) {
        if (error instanceof Unkeyed) return null;
        throw error;
    }
    return reader.keys;
}

/**
 * `keys` as one text, for an insert that takes a text per event (arrays of arrays must be
 * rectangular): comma-joined, split by string_to_array(text, ',')::bigint[]. Null stays null.
 */
export const joinedKeys = (keys: readonly number[] | null): string | null => (keys === null ? null : keys.join(','));
