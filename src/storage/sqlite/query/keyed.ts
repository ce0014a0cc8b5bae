import type { JsonColumn } from '../../query-types.js';
import { JSON_COLUMNS } from './columns.js';
import { containsCondition, type Bind } from './contains.js';

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A numeric path segment also tries an array index when it is at most this long. */
const MAX_INDEX_DIGITS = 9;
/** Three numeric segments give 8 paths to try; that is plenty. */
const MAX_ALTERNATIVES = 8;

/**
 * "The value at `path` equals `value`": strings compare exactly, true/false/null by their JSON
 * spelling, numbers numerically (so 1.50 finds 1.5), and an array matches when any element does.
 */
export function keyedCondition(column: JsonColumn, path: string[], value: string, bind: Bind): string {
    const s = bind(value);
    const n = bind(DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null);
    // typeof(key) = 'text' only for members of an object: the path named an object, which never equals a value.
    const match = `typeof(j.key) <> 'text' AND CASE j.type WHEN 'text' THEN j.atom = ${s} WHEN 'integer' THEN j.atom = ${n} WHEN 'real' THEN j.atom = ${n} `
        + `WHEN 'true' THEN ${s} = 'true' WHEN 'false' THEN ${s} = 'false' WHEN 'null' THEN ${s} = 'null' ELSE j.value = ${s} END`;
    const prefilter = textPrefilter(JSON_COLUMNS[column], path, value, bind);
    if (column === 'responseHeaders') {
        // Response header names keep the case they were set with; match them ignoring case.
        return `${prefilter}EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(e.response_headers) THEN e.response_headers END) h, json_each(json_quote(h.value)) j WHERE lower(h.key) = ${bind(path[0])} AND ${match})`;
    }
    // Only a body that is JSON has keys (a text body that happens to be JSON counts too; binary and
    // offloaded bodies have no text). json_valid also turns away JSON nested deeper than SQLite
    // parses, which JavaScript accepted at ingest.
    const source = `CASE WHEN json_valid(${JSON_COLUMNS[column]}) THEN ${JSON_COLUMNS[column]} END`;
    const alternatives = jsonPaths(path, column === 'body' || column === 'responseBody');
    return `${prefilter}(${alternatives.map((p) => `EXISTS (SELECT 1 FROM json_each(${source}, ${bind(p)}) j WHERE ${match})`).join(' OR ')})`;
}

/** A run of characters that no JSON encoder in common use escapes, long enough to be worth a LIKE. */
const SAFE_RUN = /[A-Za-z0-9 _.:-]{3,}/g;
const longestSafeRun = (text: string): string | undefined => (text.match(SAFE_RUN) ?? []).sort((a, b) => b.length - a.length)[0];

/**
 * Parsing JSON costs about 3 µs per kilobyte, a LIKE a tenth of that. A row can only match when its
 * text holds the value (a string, or true/false/null) and the last key, so a LIKE on the longest
 * plainly written run of each skips parsing nearly every row that cannot match. Numbers are left
 * out (1.5 also matches 1.50). A sender that escapes plain letters or digits as \uXXXX would be
 * missed; no mainstream JSON encoder does.
 */
function textPrefilter(column: string, path: readonly string[], value: string, bind: Bind): string {
    const key = [...path].reverse().find((s) => !/^\d+$/.test(s));
    const runs = [DECIMAL.test(value) ? undefined : longestSafeRun(value), key === undefined ? undefined : longestSafeRun(key)];
    return runs.filter((r): r is string => r !== undefined).map((r) => `${containsCondition(column, r, bind)} AND `).join('');
}

/**
 * SQLite JSON paths for key segments (already free of quotes, backslashes and control characters).
 * With `indexes`, a numeric segment addresses an array element or an object key, whichever exists
 * (for the first three numeric segments; later ones are array indexes only).
 */
export function jsonPaths(path: readonly string[], indexes: boolean): string[] {
    let paths = ['$'];
    for (const segment of path) {
        const key = `."${segment}"`;
        const asIndex = indexes && /^\d+$/.test(segment) && segment.length <= MAX_INDEX_DIGITS ? `[${Number(segment)}]` : undefined;
        if (!asIndex) paths = paths.map((p) => p + key);
        // Past MAX_ALTERNATIVES paths, further numeric segments are read as array indexes only.
        else paths = paths.length >= MAX_ALTERNATIVES ? paths.map((p) => p + asIndex) : paths.flatMap((p) => [p + asIndex, p + key]);
    }
    return paths;
}
