import { jsonPaths, numberOf, prefilterRuns } from '../../../filters/keyed.js';
import type { JsonColumn } from '../../query-types.js';
import { JSON_COLUMNS } from './columns.js';
import { containsCondition, type Bind } from './contains.js';

// The JavaScript predicate (filters/keyed-match.ts) answers every keyed filter as this SQL does;
// the pieces they share (prefilter runs, path alternatives, the bound number) are in filters/keyed.ts.

/**
 * "The value at `path` equals `value`": strings compare exactly, true/false/null by their JSON
 * spelling, numbers numerically (so 1.50 finds 1.5), and an array matches when any element does.
 */
export function keyedCondition(column: JsonColumn, path: string[], value: string, bind: Bind): string {
    const s = bind(value);
    const n = bind(numberOf(value));
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

/** What the row's text must hold (filters/keyed.ts prefilterRuns), as LIKE conditions. */
function textPrefilter(column: string, path: readonly string[], value: string, bind: Bind): string {
    return prefilterRuns(path, value).map((r) => `${containsCondition(column, r, bind)} AND `).join('');
}
