// How both backends turn a substring filter into LIKE patterns. PostgreSQL must cut a needle into the
// very patterns SQLite uses (its NUL handling depends on it), so the two share this code.

/** LIKE pattern for "contains `text`", with %, _ and the escape character (backslash) escaped. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

// Case-folded ASCII from common to rare in JSON webhook payloads (English letter frequency, digits
// and JSON punctuation first); other ASCII counts as rarest. LIKE cannot skip ahead to an escaped
// (%, _, \) or non-ASCII character, so those are never picked.
const COMMON_FIRST = ' "e:,taoinsrhld0123456789cumfpgwybv.-/kjxqz';

const rarity = (c: string): number => {
    if (c === '%' || c === '_' || c === '\\' || c.charCodeAt(0) >= 0x80) return -1;
    const at = COMMON_FIRST.indexOf(c.toLowerCase());
    return at === -1 ? COMMON_FIRST.length : at;
};

/** Where the needle's rarest character is (the first of equals; 0 when none beats the first). */
export function rarestAt(text: string): number {
    let rarest = 0;
    for (let i = 1; i < text.length; i++) if (rarity(text[i]!) > rarity(text[rarest]!)) rarest = i;
    return rarest;
}
