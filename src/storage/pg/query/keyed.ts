import type { JsonColumn } from '../../query-types.js';
import { integerText, keyOf, keySignature, stepText, valueForms } from '../body-keys.js';
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
 * still needs (statements.ts). The filter is both, ANDed. A body filter is one exact condition (bodyKeyed).
 */
export function keyedParts(column: JsonColumn, path: string[], value: string, p: Params): { prefilter: string[]; test?: string; signature?: string } {
    if (column === 'body') return bodyKeyed(path, value, p);
    const text = JSON_COLUMNS[column];
    const prefilter = textPrefilter(text, column, path, value, p);
    // JSON.stringify wrote every column but the body: its text is JSON.
    const call = walk(text, 'true', column, path, value, p);
    return { prefilter, test: call };
}

/** The JSON walk over `text` (an SQL expression; `valid`: whether it is known to be JSON). */
function walk(text: string, valid: string, column: JsonColumn, path: readonly string[], value: string, p: Params): string {
    // PostgreSQL text holds no NUL. A value with one is compared in the sanitized document (see
    // keyed-functions.ts), where a string's \u0000 escape reads as the six characters written here.
    const nul = value.includes('\u0000');
    const s = p.bind(nul ? value.replaceAll('\u0000', '\\u0000') : value, 'text');
    const number = numberOf(value);
    const n = p.bind(number, 'float8');
    const nInt = p.bind(integerText(number), 'numeric');
    const source = `${nul ? `whd_json_sanitize(${text})` : text}, ${valid}`;
    if (column === 'responseHeaders') return `whd_keyed_header(${source}, ${p.bind(path[0], 'text')}, ${s}, ${n}, ${nInt})`;
    const steps = p.bind(path, 'text[]');
    const modes = p.bind(stepModes(path, column === 'body' || column === 'responseBody'), 'text');
    return `whd_keyed(${source}, ${steps}, ${modes}, ${s}, ${n}, ${nInt})`;
}

const numberOf = (value: string): number | null => (DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null);

/**
 * A keyed body filter: the keys written at ingest (body-keys.ts) hold one of the value's forms at
 * one of the paths the steps can mean (a numeric step: a member name or an array index, stepModes),
 * which the GIN index on body_keys finds exactly. Bodies without keys (NULL: stored before they
 * existed, or beyond what they describe) are walked as before: one subquery, run once per statement,
 * lists those that match, narrowed through the body's trigram index or the index of unkeyed rows
 * (whichever the planner finds fewer), so a large body is never read for every query.
 * `signature`: what a row's key signature (body-keys.ts keySignature) must hold to have one of the
 * keys, which the sort indexes carry: both bits of one key, or no signature (walked, or stored before).
 */
function bodyKeyed(path: readonly string[], value: string, p: Params): { prefilter: string[]; signature: string } {
    const modes = stepModes(path, true);
    let paths = [''];
    path.forEach((segment, i) => {
        const steps = [...(modes[i] !== 'i' ? [stepText(segment)] : []), ...(modes[i] !== 'k' ? [stepText(Number(segment))] : [])];
        paths = paths.flatMap((at) => steps.map((step) => at + step));
    });
    // A value with NUL cannot be in a key (such a body has none): only bodies without keys can match.
    const forms = value.includes('\u0000') ? [] : valueForms(value, numberOf(value));
    const keys = paths.flatMap((at) => forms.map((form) => keyOf(at, form)));
    const text = '(b.text COLLATE "C")';
    const walked = ['x.body_keys IS NULL', ...textPrefilter(text, 'body', path, value, p), walk(text, "x.body_kind = 'json'", 'body', path, value, p)];
    const condition = `(e.body_keys && ${p.bind(keys, 'bigint[]')} OR e.seq = ANY (ARRAY(SELECT x.seq FROM events_all x JOIN bodies_all b ON b.seq = x.seq WHERE ${walked.join(' AND ')})))`;
    // The masks are written as constants (numbers this code computed), not bound: only the walk's
    // statement has this condition, and the others' values must be exactly those they use.
    const masks = [...new Set(keys.map((key) => `'${keySignature([key])!.toString()}'::bigint`))];
    return { prefilter: [condition], signature: `(e.body_sig IS NULL${masks.map((m) => ` OR (e.body_sig & ${m}) = ${m}`).join('')})` };
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
function textPrefilter(sql: string, column: JsonColumn, path: readonly string[], value: string, p: Params): string[] {
    const key = [...path].reverse().find((segment) => !/^\d+$/.test(segment));
    const conditions: string[] = [];
    if (column === 'body') {
        const runs = [DECIMAL.test(value) ? undefined : longestSafeRun(value), key === undefined ? undefined : longestSafeRun(key)];
        for (const r of runs) if (r !== undefined) conditions.push(containsCondition(sql, r, p));
    } else {
        if (key !== undefined) conditions.push(containsCondition(sql, `${JSON.stringify(key)}:`, p));
        const plain = JSON.stringify(value) === `"${value}"`;
        const number = numberOf(value);
        if (number !== null) {
            // A response header's true and false compare as 1 and 0 (SQLite reads the header's value
            // through json_quote, see keyed-functions.ts).
            const flag = column === 'responseHeaders' && (number === 1 || number === 0) ? [number === 1 ? 'true' : 'false'] : [];
            const forms = [...new Set([value, String(number), ...flag])].map(escapeRegex).join('|');
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
