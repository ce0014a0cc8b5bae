import type { JsonColumn } from '../../query-types.js';
import { JSON_COLUMNS } from './columns.js';
import { containsCondition } from './contains.js';
import type { Params } from './params.js';

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
// As sqlite/query/keyed.ts: a numeric segment of at most 9 digits may also be an array index, for
// the first three such segments (8 paths); later ones are array indexes only.
const MAX_INDEX_DIGITS = 9;
const MAX_ALTERNATIVES = 8;

/**
 * Per path segment: 'k' an object key only, 'i' an array index only, 'e' either (whichever the
 * node is). SQLite tries one JSON path per combination; at any node only one of them can resolve,
 * so one walk taking whichever applies finds the same element.
 */
export function stepModes(path: readonly string[], indexes: boolean): string {
    let alternatives = 1;
    return path.map((segment) => {
        if (!indexes || !/^\d+$/.test(segment) || segment.length > MAX_INDEX_DIGITS) return 'k';
        if (alternatives >= MAX_ALTERNATIVES) return 'i';
        alternatives *= 2;
        return 'e';
    }).join('');
}

/**
 * "The value at `path` equals `value`", as the SQLite backend answers it (see keyed-functions.ts for
 * the rules), in two parts: conditions on the text that a trigram index serves and that skip the
 * JSON walk of nearly every row that cannot match (`prefilter`, textPrefilter), and the walk that
 * decides (`test`, a function call over the same row), which a caller may run only on the rows it
 * still needs (run.ts). The filter is both, ANDed.
 */
export function keyedParts(column: JsonColumn, path: string[], value: string, p: Params): { prefilter: string[]; test: string } {
    // PostgreSQL text holds no NUL. A value with one is compared in the sanitized document (see
    // keyed-functions.ts), where a string's \u0000 escape reads as the six characters written here.
    const nul = value.includes('\u0000');
    const s = p.bind(nul ? value.replaceAll('\u0000', '\\u0000') : value, 'text');
    const number = DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null;
    const n = p.bind(number, 'float8');
    const nInt = p.bind(number !== null && Number.isInteger(number) ? BigInt(number).toString() : null, 'numeric');
    const prefilter = textPrefilter(column, path, value, p);
    const text = column === 'body' ? 'e.body_text' : JSON_COLUMNS[column];
    // Whether the text is known to be JSON: JSON.stringify wrote every column but the body, and
    // ingest's scanner passed a body of kind json (a text body may be anything).
    const source = `${nul ? `whd_json_sanitize(${text})` : text}, ${column === 'body' ? "e.body_kind = 'json'" : 'true'}`;
    if (column === 'responseHeaders') return { prefilter, test: `whd_keyed_header(${source}, ${p.bind(path[0], 'text')}, ${s}, ${n}, ${nInt})` };
    const steps = p.bind(path, 'text[]');
    const modes = p.bind(stepModes(path, column === 'body' || column === 'responseBody'), 'text');
    return { prefilter, test: `whd_keyed(${source}, ${steps}, ${modes}, ${s}, ${n}, ${nInt})` };
}

/** A run of characters that no JSON encoder in common use escapes, long enough to be worth a LIKE. */
const SAFE_RUN = /[A-Za-z0-9 _.:-]{3,}/g;
const longestSafeRun = (text: string): string | undefined => (text.match(SAFE_RUN) ?? []).sort((a, b) => b.length - a.length)[0];

/**
 * What a matching row's text must hold, as conditions the column's trigram index serves. The body is
 * any sender's JSON: as the SQLite backend, the longest plain run of the value and of the last key
 * (a sender may escape anything else). Every other JSON column was written by JSON.stringify
 * (rows.ts), which escapes only quotes, backslashes, control characters and lone surrogates and
 * writes numbers in one way, so the row must hold the key as `"key":` and the value as written:
 * the value itself (a string, true/false/null, or an array or object, which match as their minified
 * text), or for a number either `"value"` (a string) or the number as JavaScript prints it between
 * JSON delimiters. Without this, a value such as text/html (plain runs "text" and "html") or a short
 * key such as n let nearly every row through to the JSON walk (10 s at a million events).
 */
function textPrefilter(column: JsonColumn, path: readonly string[], value: string, p: Params): string[] {
    const sql = JSON_COLUMNS[column];
    const key = [...path].reverse().find((segment) => !/^\d+$/.test(segment));
    const conditions: string[] = [];
    if (column === 'body') {
        const runs = [DECIMAL.test(value) ? undefined : longestSafeRun(value), key === undefined ? undefined : longestSafeRun(key)];
        for (const r of runs) if (r !== undefined) conditions.push(containsCondition(sql, r, p));
    } else {
        if (key !== undefined) conditions.push(containsCondition(sql, `${JSON.stringify(key)}:`, p));
        const plain = JSON.stringify(value) === `"${value}"`;
        if (DECIMAL.test(value) && Number.isFinite(Number(value))) {
            // A response header's true and false compare as 1 and 0 (SQLite reads the header's value
            // through json_quote, see keyed-functions.ts).
            const flag = column === 'responseHeaders' && (Number(value) === 1 || Number(value) === 0) ? [Number(value) === 1 ? 'true' : 'false'] : [];
            const forms = [...new Set([value, String(Number(value)), ...flag])].map(escapeRegex).join('|');
            conditions.push(`${sql} ~ ${p.bind(`(^|[:,["])(${forms})($|[],}"])`, 'text')}`);
        } else if (plain) {
            conditions.push(containsCondition(sql, value, p));
        } else {
            const run = longestSafeRun(value);
            if (run !== undefined) conditions.push(containsCondition(sql, run, p));
        }
    }
    return conditions;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
