import type { Form } from './key-hash.js';

// The forms a number takes in a body's keys and in the value a keyed filter asks for (body-keys.ts).

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
