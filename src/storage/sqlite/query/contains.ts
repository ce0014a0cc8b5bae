/** Binds a value and returns its SQL parameter name. */
export type Bind = (value: unknown) => string;

/** LIKE pattern for "contains `text`", with %, _ and the escape character escaped. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Case-folded ASCII from common to rare in JSON webhook payloads (English letter frequency, digits
// and JSON punctuation first); other ASCII counts as rarest. LIKE cannot skip ahead to an escaped
// (%, _, \) or non-ASCII character, so those are never picked.
const COMMON_FIRST = ' "e:,taoinsrhld0123456789cumfpgwybv.-/kjxqz';

/**
 * "`column` contains `text`", ignoring ASCII case, with LIKE. SQLite's LIKE skips ahead with strcspn
 * to the pattern's first character, so a frequent first letter (say the r of "requires") makes it
 * stop at nearly every byte. Matching first from the needle's rarest character, then the whole
 * needle, halves a full scan; the first test is implied by the second, so results do not change.
 */
export function containsCondition(column: string, text: string, bind: Bind): string {
    const whole = `${column} LIKE ${bind(containsPattern(text))} ESCAPE '\\'`;
    let rarest = 0;
    for (let i = 1; i < text.length; i++) if (rarity(text[i]!) > rarity(text[rarest]!)) rarest = i;
    if (rarest === 0) return whole;
    return `(${column} LIKE ${bind(containsPattern(text.slice(rarest)))} ESCAPE '\\' AND ${whole})`;
}

const rarity = (c: string): number => {
    if (c === '%' || c === '_' || c === '\\' || c.charCodeAt(0) >= 0x80) return -1;
    const at = COMMON_FIRST.indexOf(c.toLowerCase());
    return at === -1 ? COMMON_FIRST.length : at;
};
