import { begin, ended, extended, feed, feedBytes, finish, isSpace, stepText, unkeyed, type PathHash } from './key-hash.js';
import { numberForms } from './key-forms.js';

// The reader of body-keys.ts: one pass over a body's bytes, collecting the keys of every (path,
// value) a keyed filter can match.

/** Most keys a body gets; a body with more is walked when queried. */
const MAX_KEYS = 2000;
/** Bodies longer than this (bytes) are walked when queried, not keyed at ingest. */
export const MAX_BYTES = 256 * 1024;
/** Most bytes hashed for one body: an array's elements are hashed again at the array's path, so nesting multiplies the work. */
const MAX_HASHED = 4 * MAX_BYTES;

const isDigit = (c: number | undefined): boolean => c !== undefined && c >= 0x30 && c <= 0x39;

/** In a string, a surrogate code unit outside a pair (a pair reads as one code point under /u). */
const LONE_SURROGATE = /\p{Cs}/u;

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
export class Reader {
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
