// Deciding whether a body is JSON without building it: a webhook body is usually only stored, and
// materializing every object of every payload (then collecting it) was the largest single cost of
// ingest on the main thread. The value is parsed later, only when something needs it.

const ARRAY = 1;
const OBJECT = 2;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function skipSpace(b: Uint8Array, i: number): number {
    while (i < b.length && isSpace(b[i]!)) i++;
    return i;
}

// What a byte means inside a string: 0 ordinary, 1 the closing quote, 2 an escape, 3 invalid
// (a control character). Bytes past the end read as undefined, which ends the plain-run loop.
const IN_STRING = new Uint8Array(256);
IN_STRING.fill(3, 0, 0x20);
IN_STRING[0x22] = 1;
IN_STRING[0x5c] = 2;

/** Index just past the string starting at `i` (a quote), or -1 when it is not a valid string. */
function scanString(b: Uint8Array, i: number): number {
    if (b[i] !== 0x22) return -1;
    i++;
    for (;;) {
        while (IN_STRING[b[i]!] === 0) i++;
        const kind = IN_STRING[b[i]!];
        if (kind === 1) return i + 1;
        if (kind !== 2) return -1;
        const e = b[++i];
        if (e === 0x75) {
            if (i + 4 >= b.length || !isHex(b[i + 1]!) || !isHex(b[i + 2]!) || !isHex(b[i + 3]!) || !isHex(b[i + 4]!)) return -1;
            i += 5;
        } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) {
            i++;
        } else {
            return -1;
        }
    }
}

/** Index just past the number starting at `i`, or -1. */
function scanNumber(b: Uint8Array, i: number): number {
    if (b[i] === 0x2d) i++;
    if (b[i] === 0x30) i++;
    else if (i < b.length && isDigit(b[i]!)) while (i < b.length && isDigit(b[i]!)) i++;
    else return -1;
    if (b[i] === 0x2e) {
        i++;
        if (!(i < b.length && isDigit(b[i]!))) return -1;
        while (i < b.length && isDigit(b[i]!)) i++;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
        i++;
        if (b[i] === 0x2b || b[i] === 0x2d) i++;
        if (!(i < b.length && isDigit(b[i]!))) return -1;
        while (i < b.length && isDigit(b[i]!)) i++;
    }
    return i;
}

/** Index just past `word` at `i`, or -1. */
function scanWord(b: Uint8Array, i: number, word: readonly number[]): number {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
    return i + word.length;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** Index just past `"key"` and the colon after it (spaces allowed around both), or -1. */
function scanKey(b: Uint8Array, i: number): number {
    i = scanString(b, skipSpace(b, i));
    if (i < 0) return -1;
    i = skipSpace(b, i);
    return b[i] === 0x3a ? i + 1 : -1;
}

/**
 * The deepest nesting kept structured. Serializing is recursive in V8: JSON.stringify overflows the
 * stack near 4,000 levels at the top of the stack and near 2,300 under a 5,000-frame stack, and every
 * read and the dataset export serialize the body. SQLite's JSON functions (keyed `body[...]` filters)
 * stop at 1,000 levels as well. A deeper body is stored as text, byte-exact.
 */
export const MAX_JSON_DEPTH = 1000;

/** What the scanner found: one JSON text, not JSON, or JSON-looking input nested past the cap. */
export type JsonTextVerdict = 'json' | 'invalid' | 'too-deep';

/** Whether the bytes are exactly one JSON text (see scanJsonText), at any depth. */
export function isJsonText(b: Uint8Array): boolean {
    return scanJsonText(b, Infinity) === 'json';
}

/**
 * Whether the bytes are exactly one JSON text as `JSON.parse` accepts it (ECMA-404: no comments,
 * no trailing commas, only space, tab, CR and LF around tokens), for input already known to be
 * valid UTF-8. Iterative; containers nested deeper than `maxDepth` stop the scan with 'too-deep'.
 */
export function scanJsonText(b: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): JsonTextVerdict {
    let stack = new Uint8Array(32);
    let depth = 0;
    let i = 0;
    for (;;) {
        // A value starts at i.
        i = skipSpace(b, i);
        const c = b[i];
        if (c === 0x7b || c === 0x5b) {
            // Opening a container at `depth` makes depth + 1 levels, empty or not.
            if (depth >= maxDepth) return 'too-deep';
            const close = c === 0x7b ? 0x7d : 0x5d;
            i = skipSpace(b, i + 1);
            if (b[i] === close) {
                i++;
            } else {
                if (depth === stack.length) {
                    const grown = new Uint8Array(stack.length * 2);
                    grown.set(stack);
                    stack = grown;
                }
                stack[depth++] = c === 0x7b ? OBJECT : ARRAY;
                if (c === 0x7b && (i = scanKey(b, i)) < 0) return 'invalid';
                continue;
            }
        } else if (c === 0x22) i = scanString(b, i);
        else if (c === 0x2d || (c !== undefined && isDigit(c))) i = scanNumber(b, i);
        else if (c === 0x74) i = scanWord(b, i, TRUE);
        else if (c === 0x66) i = scanWord(b, i, FALSE);
        else if (c === 0x6e) i = scanWord(b, i, NULL);
        else return 'invalid';
        if (i < 0) return 'invalid';
        // A value ended: close containers until one continues with a comma.
        for (;;) {
            i = skipSpace(b, i);
            if (depth === 0) return i === b.length ? 'json' : 'invalid';
            const top = stack[depth - 1];
            const d = b[i];
            if (d === 0x2c) {
                if (top === OBJECT && (i = scanKey(b, i + 1)) < 0) return 'invalid';
                if (top === ARRAY) i++;
                break;
            }
            if (d !== (top === OBJECT ? 0x7d : 0x5d)) return 'invalid';
            depth--;
            i++;
        }
    }
}

/**
 * Whether a JSON text nests containers deeper than `maxDepth` (strings are skipped). For text read
 * back from storage, where rows written before the cap existed may hold deeper JSON.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
    if (text.length <= maxDepth) return false;
    let depth = 0;
    for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x22) {
            // Skip the string: an escaped character never ends it.
            for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
        } else if (c === 0x7b || c === 0x5b) {
            if (++depth > maxDepth) return true;
        } else if (c === 0x7d || c === 0x5d) depth--;
    }
    return false;
}
