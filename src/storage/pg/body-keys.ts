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
// A key is a 53-bit hash (finish) of the text `step,step,...,tag:value` (a step is a member name
// as a JSON string or an index as digits): 8 bytes whatever the path and value. The full texts made
// a 1 KB body's keys 2.3 KB, and PostgreSQL ingest (fsync on) fell from ~60 % to ~33 % of SQLite mode
// under the extra WAL. The body is read as bytes: its UTF-8 is hashed as the UTF-16 code units it
// encodes, the units keyOf hashes from the value asked for; decoding it to a string first took 10 µs
// of the main thread for the bench body instead of 6 (bench/README.md). Two different texts share a
// hash with probability 2^-53: a keyed filter then also lists a body that does not hold the value.
// A body the keys cannot describe exactly gets none (NULL): the query then walks its text.

/** Most keys a body gets; a body with more is walked when queried. */
const MAX_KEYS = 2000;
/** Bodies longer than this (bytes) are walked when queried, not keyed at ingest. */
const MAX_BYTES = 256 * 1024;
/** Most bytes hashed for one body: an array's elements are hashed again at the array's path, so nesting multiplies the work. */
const MAX_HASHED = 4 * MAX_BYTES;

/** A form a value matches: the tag and the text the walk compares. */
type Form = readonly [tag: 's' | 'i' | 'r', text: string];

/** The text of one path step in a key, with the comma that ends it: a path is its steps' texts in a row. */
export const stepText = (step: string | number): string => `${typeof step === 'number' ? String(step) : JSON.stringify(step)},`;

/** The key of a value's form at a path (its steps' texts, stepText). */
export function keyOf(path: string, [tag, text]: Form): number {
    begin(null);
    feed(`${path}${tag}:${text}`);
    return finish();
}

// The two lanes of a key's hash, fed in place (no closure or pair allocated per character run).
let lane1 = 0;
let lane2 = 0;

/** Sets the lanes to a path's hash (the document's seeds for null). */
function begin(at: PathHash): void {
    lane1 = at ? at.a : 0xdeadbeef;
    lane2 = at ? at.b : 0x41c6ce57;
}

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

/** The lanes as a path's hash. */
const ended = (): PathHash => ({ a: lane1, b: lane2 });

/** The path `at` followed by a step's text (stepText). */
function extended(at: PathHash, step: string): PathHash {
    begin(at);
    feed(step);
    return ended();
}

/**
 * The key the lanes hold: they were fed a path's steps' texts, then `tag` + ':' + the text compared,
 * as one text (two 32-bit multiplicative lanes, mixed here: a double holds 53 bits exactly).
 * Unambiguous: each step is a JSON string or digits and ends with a comma, a tag is one letter, and
 * the text comes last. A path's lanes are kept, so a body hashes each step once.
 */
function finish(): number {
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

/** The integer a number asked for is (its digits, exact past 2^53), or null when it is none. */
export const integerText = (number: number | null): string | null => (number !== null && Number.isInteger(number) ? BigInt(number).toString() : null);

/** The forms a value asked for matches: its text, and for a number its double and (when whole) its integer. */
export function valueForms(value: string, number: number | null): Form[] {
    const forms: Form[] = [['s', value]];
    const integer = integerText(number);
    if (number !== null) forms.push(['r', String(number)]);
    if (integer !== null) forms.push(['i', integer]);
    return forms;
}

class Unkeyed extends Error {}
const unkeyed = (): never => {
    throw new Unkeyed();
};

const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/** In a string, a surrogate code unit outside a pair (a pair reads as one code point under /u). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Feeds the UTF-8 bytes b[from, to) to the lanes as the UTF-16 code units they encode (what feed()
 * takes from the same text as a string), so a body is hashed without being decoded. Invalid UTF-8
 * (stored as U+FFFD, which the walk then compares) is unkeyed. `minify` leaves out the whitespace
 * outside strings, as the walk renders an array or object.
 */
function feedBytes(b: Uint8Array, from: number, to: number, minify: boolean): void {
    let h1 = lane1;
    let h2 = lane2;
    let quoted = false;
    for (let i = from; i < to; i++) {
        let c = b[i]!;
        if (c >= 0x80) {
            let more: number;
            let least: number;
            if (c >= 0xc2 && c <= 0xdf) {
                more = 1;
                least = 0x80;
                c &= 0x1f;
            } else if (c >= 0xe0 && c <= 0xef) {
                more = 2;
                least = 0x800;
                c &= 0x0f;
            } else if (c >= 0xf0 && c <= 0xf4) {
                more = 3;
                least = 0x10000;
                c &= 0x07;
            } else return unkeyed();
            if (i + more >= to) unkeyed();
            for (; more > 0; more--) {
                const d = b[++i]!;
                if ((d & 0xc0) !== 0x80) unkeyed();
                c = (c << 6) | (d & 0x3f);
            }
            if (c < least || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) unkeyed();
            if (c >= 0x10000) {
                // Two code units: the high surrogate here, the low one below.
                const high = 0xd800 + ((c - 0x10000) >> 10);
                h1 = Math.imul(h1 ^ high, 2654435761);
                h2 = Math.imul(h2 ^ high, 1597334677);
                c = 0xdc00 + ((c - 0x10000) & 0x3ff);
            }
        } else if (minify) {
            if (!quoted) {
                if (isSpace(c)) continue;
                quoted = c === 0x22;
            } else if (c === 0x5c) {
                // An escape: the backslash here, the character it escapes (never an ending quote) below.
                h1 = Math.imul(h1 ^ c, 2654435761);
                h2 = Math.imul(h2 ^ c, 1597334677);
                c = b[++i]!;
            } else if (c === 0x22) quoted = false;
        }
        h1 = Math.imul(h1 ^ c, 2654435761);
        h2 = Math.imul(h2 ^ c, 1597334677);
    }
    lane1 = h1;
    lane2 = h2;
}

/** Whether bytes[x, x + length) and bytes[y, y + length) are the same. */
function sameBytes(bytes: Uint8Array, x: number, y: number, length: number): boolean {
    for (let k = 0; k < length; k++) if (bytes[x + k] !== bytes[y + k]) return false;
    return true;
}

/**
 * The member names an object has had, to tell the first member of each name: literals without an
 * escape compared by their bytes (the same text is the same bytes; without an escape a literal's text is what lies between its quotes), and once an object has an escaped
 * or many names, every name by its text (a Set, so a wide object costs no square of its width).
 */
class Names {
    private readonly spans: number[] = [];
    private texts: Set<string> | undefined;

    constructor(private readonly b: Buffer) {}

    /** Whether the literal b[start, end) (its text `escaped` when it has an escape) is the first of its name. */
    first(start: number, end: number, escaped: string | undefined): boolean {
        const { b, spans } = this;
        if (!this.texts && escaped === undefined && spans.length < 32) {
            for (let k = 0; k < spans.length; k += 2) if (spans[k + 1]! - spans[k]! === end - start && sameBytes(b, spans[k]!, start, end - start)) return false;
            spans.push(start, end);
            return true;
        }
        if (!this.texts) {
            this.texts = new Set();
            for (let k = 0; k < spans.length; k += 2) this.texts.add(b.toString('utf8', spans[k]! + 1, spans[k + 1]! - 1));
        }
        const text = escaped ?? b.toString('utf8', start + 1, end - 1);
        if (this.texts.has(text)) return false;
        this.texts.add(text);
        return true;
    }
}

/** Reads one JSON text (bytes already known valid JSON), collecting keys. */
class Reader {
    private i = 0;
    /** The keys (an array holding the same one twice repeats it: harmless in the index). */
    readonly keys: number[] = [];
    /** Bytes left to hash (MAX_HASHED). */
    private budget = MAX_HASHED;

    constructor(private readonly b: Buffer) {}

    /** Adds the key of (path, tag, b[from, to)) at `path` and, inside an array, at `parent`. */
    private keyBytes(path: PathHash, parent: PathHash | undefined, tag: string, from: number, to: number, minify: boolean): void {
        this.keyOfBytes(path, tag, from, to, minify);
        if (parent !== undefined) this.keyOfBytes(parent, tag, from, to, minify);
    }

    private keyOfBytes(at: PathHash, tag: string, from: number, to: number, minify: boolean): void {
        // No filter names the document itself (a path has a step at least).
        if (at === null) return;
        if ((this.budget -= to - from) < 0) unkeyed();
        begin(at);
        feed(tag);
        feedBytes(this.b, from, to, minify);
        this.push();
    }

    /** Adds the key of (path, tag, text) at `path` and, inside an array, at `parent`. */
    private keyText(path: PathHash, parent: PathHash | undefined, tag: string, text: string): void {
        this.keyOfText(path, tag, text);
        if (parent !== undefined) this.keyOfText(parent, tag, text);
    }

    private keyOfText(at: PathHash, tag: string, text: string): void {
        if (at === null) return;
        if ((this.budget -= text.length) < 0) unkeyed();
        begin(at);
        feed(tag);
        feed(text);
        this.push();
    }

    private push(): void {
        if (this.keys.push(finish()) > MAX_KEYS) unkeyed();
    }

    private space(): void {
        while (isSpace(this.b[this.i])) this.i++;
    }

    /** Moves past the string literal at this.i; whether it holds an escape. */
    private string(): boolean {
        const { b } = this;
        let i = this.i + 1;
        let escaped = false;
        for (;;) {
            const c = b[i];
            if (c === 0x22) break;
            if (c === undefined) unkeyed();
            if (c === 0x5c) {
                escaped = true;
                i += 2;
            } else i++;
        }
        this.i = i + 1;
        return escaped;
    }

    /**
     * The text of the escaped string literal b[start, end). Text the walk cannot compare as the keys
     * say is unkeyed: NUL and lone surrogates (PostgreSQL text holds neither), and invalid UTF-8.
     */
    private decoded(start: number, end: number): string {
        const text = JSON.parse(this.b.toString('utf8', start, end)) as string;
        if (text.includes('\u0000') || text.includes('\ufffd') || LONE_SURROGATE.test(text)) unkeyed();
        return text;
    }

    /** The value at this.i, its keys added at `path`; also its forms at `parent` when an array holds it. */
    value(path: PathHash, parent?: PathHash): void {
        this.space();
        const { b } = this;
        const start = this.i;
        const c = b[start];
        if (c === 0x7b || c === 0x5b) {
            this.i++;
            this.space();
            if (c === 0x7b) this.object(path);
            else this.array(path);
            // An array or object is a value only inside an array, as its minified text.
            if (parent !== undefined) this.keyBytes(null, parent, 's:', start, this.i, true);
        } else if (c === 0x22) {
            if (this.string()) this.keyText(path, parent, 's:', this.decoded(start, this.i));
            else this.keyBytes(path, parent, 's:', start + 1, this.i - 1, false);
        } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
            this.i += c === 0x66 ? 5 : 4;
            this.keyBytes(path, parent, 's:', start, this.i, false);
        } else {
            this.scalarEnd();
            const negative = c === 0x2d ? 1 : 0;
            let whole = this.i - start <= 15 && this.i - start > negative;
            for (let k = start + negative; whole && k < this.i; k++) whole = isDigit(b[k]);
            // An integer of up to 15 characters is its own text (JSON has no leading zeros), but -0 is 0.
            if (whole && !(negative && this.i - start === 2 && b[start + 1] === 0x30)) this.keyBytes(path, parent, 'i:', start, this.i, false);
            else {
                const [tag, text] = numberForms(b.toString('latin1', start, this.i))?.[0] ?? unkeyed();
                this.keyText(path, parent, `${tag}:`, text);
            }
        }
    }

    private object(path: PathHash): void {
        const { b } = this;
        if (b[this.i] === 0x7d) {
            this.i++;
            return;
        }
        const names = new Names(b);
        for (;;) {
            this.space();
            const start = this.i;
            const escaped = this.string() ? this.decoded(start, this.i) : undefined;
            const end = this.i;
            this.space();
            this.i++; // the colon
            // A later member of the same name is never reached: its value is read for nothing.
            if (names.first(start, end, escaped)) {
                // The step's text is the name as JSON.stringify writes it (stepText): the literal
                // itself when it has no escape.
                if (escaped !== undefined) this.value(extended(path, stepText(escaped)));
                else {
                    begin(path);
                    feedBytes(b, start, end, false);
                    feed(',');
                    this.value(ended());
                }
            } else this.skip();
            this.space();
            const d = b[this.i++];
            if (d === 0x7d) return;
            if (d !== 0x2c) unkeyed();
        }
    }

    private array(path: PathHash): void {
        if (this.b[this.i] === 0x5d) {
            this.i++;
            return;
        }
        for (let index = 0; ; index++) {
            this.value(extended(path, `${index},`), path);
            this.space();
            const d = this.b[this.i++];
            if (d === 0x5d) return;
            if (d !== 0x2c) unkeyed();
        }
    }

    /** Moves past the value at this.i, adding nothing. */
    private skip(): void {
        this.space();
        const { b } = this;
        const c = b[this.i];
        if (c === 0x22) {
            this.string();
        } else if (c === 0x7b || c === 0x5b) {
            let depth = 0;
            do {
                const d = b[this.i];
                if (d === 0x22) {
                    this.string();
                    continue;
                }
                if (d === undefined) unkeyed();
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
            const c = this.b[this.i];
            if (c === undefined || isSpace(c) || c === 0x2c || c === 0x5d || c === 0x7d) return;
            this.i++;
        }
    }
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
    const reader = new Reader(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
    try {
        reader.value(null);
    } catch (error) {
        // A stack overflow: a body nested deeper than the scanner lets through (a restored one).
        if (error instanceof Unkeyed || error instanceof RangeError) return null;
        throw error;
    }
    return reader.keys;
}

/** The two bits of a key in a signature (keySignature): its hash's lowest two 6-bit groups. */
const keyBits = (key: number): [number, number] => [key % 64, Math.floor(key / 64) % 64];

/**
 * A body's keys folded into 64 bits, two bits per key (a Bloom filter); null for a body without keys
 * (walked when queried). Every sort index carries it (query-indexes.ts): a page walked in sort order
 * tests a keyed body filter in the index entry, and reads the table only for the rows whose signature
 * holds both bits of one of the filter's keys (query/keyed.ts). The bench body's 7 keys set 13 of 64
 * bits on average, so about 1 row in 25 without the key passes; a body with hundreds of keys has
 * nearly every bit set, and its row is read as before.
 */
export function keySignature(keys: readonly number[] | null): bigint | null {
    if (keys === null) return null;
    let low = 0;
    let high = 0;
    for (const key of keys) {
        for (const bit of keyBits(key)) {
            if (bit < 32) low |= 1 << bit;
            else high |= 1 << (bit - 32);
        }
    }
    return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
}

/** A body's keys and their signature: the two columns of an event that a direct insert writes (tests, benches). */
export const keyColumns = (keys: number[] | null): [number[] | null, bigint | null] => [keys, keySignature(keys)];

/**
 * `keys` as one text, for an insert that takes a text per event (arrays of arrays must be
 * rectangular): comma-joined, split by string_to_array(text, ',')::bigint[]. Null stays null.
 */
export const joinedKeys = (keys: readonly number[] | null): string | null => (keys === null ? null : keys.join(','));
