// A substring filter is `LIKE '%needle%' ESCAPE '\'` on both backends (PostgreSQL cuts its patterns
// as SQLite does, storage/pg/query/contains.ts), and `likeContains` is its JavaScript twin: the
// patterns are built here once, for the SQL and for the predicate alike.

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

/** The needles a substring filter tests, in SQL order: the one from its rarest character (when not the first), then the whole. */
export function containsNeedles(text: string): string[] {
    const rarest = rarestAt(text);
    return rarest === 0 ? [text] : [text.slice(rarest), text];
}

/**
 * `text` with A-Z lowered and nothing else: SQLite's LIKE folds ASCII letters only. Text that is all
 * ASCII goes through the native toLowerCase (the same there, and ~10× faster on a 1 KB body than the
 * replace, which rules pay on every request).
 */
export const asciiLower = (text: string): string => {
    if (!/[A-Z]/.test(text)) return text;
    return /[^\x00-\x7f]/.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text.toLowerCase();
};

/** One LIKE pattern of containsPattern, as SQLite reads it: cut at its first NUL, then "ends with" rather than "contains". */
interface Compiled {
    literal: string;
    anywhere: boolean;
}

function compile(needle: string): Compiled {
    const nul = needle.indexOf('\u0000');
    // containsPattern never escapes NUL, so the cut never splits an escape: what is left is `%literal`.
    return nul === -1 ? { literal: asciiLower(needle), anywhere: true } : { literal: asciiLower(needle.slice(0, nul)), anywhere: false };
}

/**
 * The JavaScript twin of containsCondition (storage/sqlite/query/contains.ts) over one column's
 * text: ASCII letters match either case, the column's text ends at its first NUL and so does each
 * pattern (which then means "ends with"), and a NULL column (`null`) matches nothing. `folded` is
 * the column's text already through asciiLower (a subject keeps it for every filter that reads it).
 */
export function compileContains(needle: string): (folded: string | null) => boolean {
    const patterns = containsNeedles(needle).map(compile);
    return (folded) => {
        if (folded === null) return false;
        const nul = folded.indexOf('\u0000');
        const text = nul === -1 ? folded : folded.slice(0, nul);
        return patterns.every((p) => (p.anywhere ? text.includes(p.literal) : text.endsWith(p.literal)));
    };
}
