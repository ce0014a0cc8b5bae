import { containsPattern, rarestAt } from '../../like-needle.js';
import type { Params } from './params.js';

// SQLite reads a LIKE pattern up to its first NUL: "%ab\0cd%" is "%ab", which means "ends with ab".
// PostgreSQL text cannot hold NUL at all, so the pattern is cut the same way here, and the same
// rows match. Stored text never holds NUL (JSON escapes it, a body with NUL is binary).
const cutAtNul = (pattern: string): string => {
    const at = pattern.indexOf('\u0000');
    return at === -1 ? pattern : pattern.slice(0, at);
};

/**
 * "`column` contains `text`", ignoring ASCII case (ILIKE under the "C" collation folds ASCII only,
 * as SQLite's LIKE). `column` is a "C"-collated expression, which a pg_trgm GIN index serves.
 * Only a needle with NUL needs SQLite's second pattern (from its rarest character): without NUL the
 * second is implied by the first; with one, each is cut at its NUL as SQLite cuts it.
 */
export function containsCondition(column: string, text: string, p: Params): string {
    const whole = `${column} ILIKE ${p.bind(cutAtNul(containsPattern(text)), 'text')}`;
    if (!text.includes('\u0000')) return whole;
    // SQLite's rarest character (storage/like-needle.ts), so a needle with a NUL is cut into the same two patterns.
    const rarest = rarestAt(text);
    if (rarest === 0) return whole;
    return `(${column} ILIKE ${p.bind(cutAtNul(containsPattern(text.slice(rarest))), 'text')} AND ${whole})`;
}
