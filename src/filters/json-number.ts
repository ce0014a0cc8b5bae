// How SQLite compares a JSON number with the double a keyed filter binds (filters/keyed.ts
// numberOf), answered in JavaScript. JSON.parse cannot stand in: it reads every number as a double,
// where SQLite keeps integers exact within 64 bits and reads reals its own way.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** (2^64 - 1 - 9) / 10: sqlite3AtoF stops taking digits into its 64-bit mantissa from here. */
const MANTISSA_FULL = 1844674407370955160n;
/** Beyond these decimal exponents sqlite3AtoF answers 0 and infinity without computing. */
const MIN_EXPONENT = -348;
const MAX_EXPONENT = 347;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * The double SQLite reads a JSON number as (sqlite3AtoF): the first 19 or 20 significant digits
 * make a 64-bit mantissa and the rest only move the exponent (it truncates, where JavaScript rounds
 * on every digit), then mantissa × 10^exponent rounds to the nearest double. Overflow is infinity,
 * underflow zero. `text` is a valid JSON number.
 */
export function sqliteReal(text: string): number {
    let i = 0;
    const negative = text.charCodeAt(0) === 0x2d;
    if (negative) i++;
    let mantissa = 0n;
    let full = false;
    let exponent = 0;
    for (; i < text.length && isDigit(text.charCodeAt(i)); i++) {
        if (full) exponent++;
        else {
            mantissa = mantissa * 10n + BigInt(text.charCodeAt(i) - 0x30);
            full = mantissa >= MANTISSA_FULL;
        }
    }
    if (text.charCodeAt(i) === 0x2e) {
        for (i++; i < text.length && isDigit(text.charCodeAt(i)); i++) {
            if (full) continue;
            mantissa = mantissa * 10n + BigInt(text.charCodeAt(i) - 0x30);
            exponent--;
            full = mantissa >= MANTISSA_FULL;
        }
    }
    if (i < text.length) {
        // e or E, a sign, digits: SQLite caps the written exponent at 10,000.
        i++;
        const sign = text[i] === '-' ? -1 : 1;
        if (text[i] === '-' || text[i] === '+') i++;
        let written = 0;
        for (; i < text.length; i++) written = written < 10_000 ? written * 10 + text.charCodeAt(i) - 0x30 : 10_000;
        exponent += sign * written;
    }
    let value: number;
    if (mantissa === 0n || exponent < MIN_EXPONENT) value = 0;
    else if (exponent > MAX_EXPONENT) value = Infinity;
    // JavaScript rounds a decimal string to the nearest double, as SQLite's conversion of mantissa and exponent does.
    else value = Number(`${mantissa}e${exponent}`);
    return negative ? -value : value;
}

/**
 * Whether the JSON number `text` equals the bound double `n` as SQLite compares them: an integer
 * that fits 64 bits exactly (9007199254740993 is not 9007199254740992), any other number as
 * sqliteReal reads it.
 */
export function numberEquals(text: string, n: number): boolean {
    if (!/[.eE]/.test(text)) {
        // Up to 15 characters an integer is exact as a double.
        if (text.length <= 15) return Number(text) === n;
        const integer = BigInt(text);
        if (integer >= INT64_MIN && integer <= INT64_MAX) return Number.isInteger(n) && BigInt(n) === integer;
    }
    return sqliteReal(text) === n;
}
