// The 53-bit key hash of body-keys.ts: two 32-bit multiplicative lanes fed a path's steps, a
// value's tag and its text, from a string or straight from a body's UTF-8 bytes.

/** A form a value matches: the tag and the text the walk compares. */
export type Form = readonly [tag: 's' | 'i' | 'r', text: string];

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
export function begin(at: PathHash): void {
    lane1 = at ? at.a : 0xdeadbeef;
    lane2 = at ? at.b : 0x41c6ce57;
}

/** Feeds a text's UTF-16 code units to the lanes. */
export function feed(text: string): void {
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
export type PathHash = { readonly a: number; readonly b: number } | null;

/** The lanes as a path's hash. */
export const ended = (): PathHash => ({ a: lane1, b: lane2 });

/** The path `at` followed by a step's text (stepText). */
export function extended(at: PathHash, step: string): PathHash {
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
export function finish(): number {
    let h1 = lane1;
    let h2 = lane2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Thrown where a body's keys cannot describe it exactly: the body then gets none (NULL). */
export class Unkeyed extends Error {}
/** Throws Unkeyed. */
export const unkeyed = (): never => {
    throw new Unkeyed();
};

/** JSON's whitespace. */
export const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Feeds the UTF-8 bytes b[from, to) to the lanes as the UTF-16 code units they encode (what feed()
 * takes from the same text as a string), so a body is hashed without being decoded. Invalid UTF-8
 * (stored as U+FFFD, which the walk then compares) is unkeyed. `minify` leaves out the whitespace
 * outside strings, as the walk renders an array or object.
 */
export function feedBytes(b: Uint8Array, from: number, to: number, minify: boolean): void {
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
