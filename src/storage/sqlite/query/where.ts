import type { Filter, JsonColumn } from '../../query-types.js';
import { EXACT_COLUMNS, JSON_COLUMNS, NUMBER_COLUMNS, PARTIAL_COLUMNS } from './columns.js';

/** SQL conditions with their bound values, built from filters. */
export interface WhereParts {
    /** One condition per filter, in the order of the filters. */
    conditions: string[];
    /** Per condition: whether it reads only the bodies table (as `b`) rather than `events e`. */
    onBody: boolean[];
    params: Record<string, unknown>;
}

const OPERATORS = { eq: '=', gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
/** A numeric path segment also tries an array index when it is at most this long. */
const MAX_INDEX_DIGITS = 9;
/** Three numeric segments give 8 paths to try; that is plenty. */
const MAX_ALTERNATIVES = 8;

/** LIKE pattern for "contains `text`", with %, _ and the escape character escaped. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The indexed column a filter can be served from, if any (see the indexes in schema.ts). */
export function indexedColumn(f: Filter): string | undefined {
    if (f.kind === 'ip') return 'e.ip_bin';
    if (f.kind === 'range') return f.field === 'processingTime' ? undefined : NUMBER_COLUMNS[f.field];
    if (f.kind === 'exact') return f.field === 'method' || f.field === 'signatureProvider' ? undefined : EXACT_COLUMNS[f.field];
    return undefined;
}

/**
 * Translates filters into conditions over `events e` (and `bodies b`). Values are bound as @pN, in
 * the same order whatever `unindexed` says, so one parameter object serves every variant. Columns
 * in `unindexed` are written `+column`, which keeps SQLite from using their index (see plan.ts).
 */
export function buildWhere(filters: readonly Filter[], unindexed: ReadonlySet<string> = new Set()): WhereParts {
    const parts: WhereParts = { conditions: [], onBody: [], params: {} };
    const bind = (value: unknown): string => {
        const name = `p${Object.keys(parts.params).length}`;
        parts.params[name] = value;
        return `@${name}`;
    };
    const col = (column: string): string => (unindexed.has(column) ? `+${column}` : column);
    for (const f of filters) {
        switch (f.kind) {
            case 'exact':
                parts.conditions.push(`${col(EXACT_COLUMNS[f.field])} = ${bind(f.value)}`);
                break;
            case 'range':
                parts.conditions.push(`${col(NUMBER_COLUMNS[f.field])} ${OPERATORS[f.op]} ${bind(f.value)}`);
                break;
            case 'partial':
                parts.conditions.push(containsCondition(PARTIAL_COLUMNS[f.field], f.value, bind));
                break;
            case 'ip':
                parts.conditions.push(`${col('e.ip_bin')} BETWEEN ${bind(f.lo)} AND ${bind(f.hi)}`);
                break;
            case 'bool':
                parts.conditions.push(`e.signature_valid = ${bind(f.value ? 1 : 0)}`);
                break;
            case 'text':
                parts.conditions.push(containsCondition(JSON_COLUMNS[f.column], f.value, bind));
                break;
            case 'keyed':
                parts.conditions.push(keyedCondition(f.column, f.path, f.value, bind));
                break;
        }
        parts.onBody.push((f.kind === 'text' || f.kind === 'keyed') && f.column === 'body');
    }
    return parts;
}

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
function containsCondition(column: string, text: string, bind: (v: unknown) => string): string {
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

/**
 * "The value at `path` equals `value`": strings compare exactly, true/false/null by their JSON
 * spelling, numbers numerically (so 1.50 finds 1.5), and an array matches when any element does.
 */
function keyedCondition(column: JsonColumn, path: string[], value: string, bind: (v: unknown) => string): string {
    const s = bind(value);
    const n = bind(DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null);
    // typeof(key) = 'text' only for members of an object: the path named an object, which never equals a value.
    const match = `typeof(j.key) <> 'text' AND CASE j.type WHEN 'text' THEN j.atom = ${s} WHEN 'integer' THEN j.atom = ${n} WHEN 'real' THEN j.atom = ${n} `
        + `WHEN 'true' THEN ${s} = 'true' WHEN 'false' THEN ${s} = 'false' WHEN 'null' THEN ${s} = 'null' ELSE j.value = ${s} END`;
    if (column === 'responseHeaders') {
        // Response header names keep the case they were set with; match them ignoring case.
        return `EXISTS (SELECT 1 FROM json_each(CASE WHEN json_valid(e.response_headers) THEN e.response_headers END) h, json_each(json_quote(h.value)) j WHERE lower(h.key) = ${bind(path[0])} AND ${match})`;
    }
    // Only a body that is JSON has keys (a text body that happens to be JSON counts too; binary and
    // offloaded bodies have no text). json_valid also turns away JSON nested deeper than SQLite
    // parses, which JavaScript accepted at ingest.
    const source = `CASE WHEN json_valid(${JSON_COLUMNS[column]}) THEN ${JSON_COLUMNS[column]} END`;
    const alternatives = jsonPaths(path, column === 'body' || column === 'responseBody');
    return `(${alternatives.map((p) => `EXISTS (SELECT 1 FROM json_each(${source}, ${bind(p)}) j WHERE ${match})`).join(' OR ')})`;
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
