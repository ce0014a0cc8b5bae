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
 * "The value at `path` equals `value`", as the SQLite backend answers it (see keyed-functions.ts
 * for the rules), behind the same LIKE prefilter, which decides the same rows: it also skips the
 * JSON parse of nearly every row that cannot match.
 */
export function keyedCondition(column: JsonColumn, path: string[], value: string, p: Params): string {
    // PostgreSQL text holds no NUL. A value with one is compared in the sanitized document (see
    // keyed-functions.ts), where a string's \u0000 escape reads as the six characters written here.
    const nul = value.includes('\u0000');
    const s = p.bind(nul ? value.replaceAll('\u0000', '\\u0000') : value, 'text');
    const number = DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null;
    const n = p.bind(number, 'float8');
    const nInt = p.bind(number !== null && Number.isInteger(number) ? BigInt(number).toString() : null, 'numeric');
    const prefilter = textPrefilter(JSON_COLUMNS[column], path, value, p);
    const text = column === 'body' ? 'e.body_text' : JSON_COLUMNS[column];
    // Whether the text is known to be JSON: JSON.stringify wrote every column but the body, and
    // ingest's scanner passed a body of kind json (a text body may be anything).
    const source = `${nul ? `whd_json_sanitize(${text})` : text}, ${column === 'body' ? "e.body_kind = 'json'" : 'true'}`;
    if (column === 'responseHeaders') return `${prefilter}whd_keyed_header(${source}, ${p.bind(path[0], 'text')}, ${s}, ${n}, ${nInt})`;
    const steps = p.bind(path, 'text[]');
    const modes = p.bind(stepModes(path, column === 'body' || column === 'responseBody'), 'text');
    return `${prefilter}whd_keyed(${source}, ${steps}, ${modes}, ${s}, ${n}, ${nInt})`;
}

/** A run of characters that no JSON encoder in common use escapes, long enough to be worth a LIKE. */
const SAFE_RUN = /[A-Za-z0-9 _.:-]{3,}/g;
const longestSafeRun = (text: string): string | undefined => (text.match(SAFE_RUN) ?? []).sort((a, b) => b.length - a.length)[0];

/** The same LIKE prefilter as the SQLite backend: the longest plain run of the value and of the last key. */
function textPrefilter(column: string, path: readonly string[], value: string, p: Params): string {
    const key = [...path].reverse().find((segment) => !/^\d+$/.test(segment));
    const runs = [DECIMAL.test(value) ? undefined : longestSafeRun(value), key === undefined ? undefined : longestSafeRun(key)];
    return runs.filter((r): r is string => r !== undefined).map((r) => `${containsCondition(column, r, p)} AND `).join('');
}
