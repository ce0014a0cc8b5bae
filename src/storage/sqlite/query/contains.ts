import { containsNeedles, containsPattern } from '../../../filters/like.js';

/** Binds a value and returns its SQL parameter name. */
export type Bind = (value: unknown) => string;

/**
 * "`column` contains `text`", ignoring ASCII case, with LIKE. SQLite's LIKE skips ahead with strcspn
 * to the pattern's first character, so a frequent first letter (say the r of "requires") makes it
 * stop at nearly every byte. Matching first from the needle's rarest character, then the whole
 * needle, halves a full scan; the first test is implied by the second, so results do not change.
 * The predicate's twin (filters/like.ts compileContains) tests the same needles.
 */
export function containsCondition(column: string, text: string, bind: Bind): string {
    const whole = `${column} LIKE ${bind(containsPattern(text))} ESCAPE '\\'`;
    const [first, ...rest] = containsNeedles(text);
    if (rest.length === 0) return whole;
    return `(${column} LIKE ${bind(containsPattern(first!))} ESCAPE '\\' AND ${whole})`;
}
