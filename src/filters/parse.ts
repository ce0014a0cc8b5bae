import type { ExactField, Filter, JsonColumn, NumberField, PartialField, RangeOp } from './types.js';
import { badParam, parseBool, parseIpRange, parseNumber, parseTimestamp } from './values.js';

// answeredBy: the name of the rule that answered (webhooks/rules.ts).
const EXACT = new Set<string>(['id', 'webhookId', 'requestId', 'signatureProvider', 'method', 'answeredBy'] satisfies ExactField[]);
const NUMBERS = new Set<string>(['statusCode', 'size', 'processingTime', 'timestamp'] satisfies NumberField[]);
const PARTIAL = new Set<string>(['requestUrl', 'contentType', 'userAgent'] satisfies PartialField[]);
const JSON_COLUMNS = new Set<string>(['headers', 'query', 'body', 'responseHeaders', 'responseBody', 'form'] satisfies JsonColumn[]);
const OTHERS = ['remoteIp', 'signatureValid', 'startTime', 'endTime', 'hasFiles'];
/** Columns holding flat maps: the bracketed key is one name, dots included. */
const FLAT_COLUMNS = new Set<JsonColumn>(['headers', 'query', 'responseHeaders', 'form']);
const RANGE_OPS = new Set<string>(['gte', 'gt', 'lte', 'lt'] satisfies RangeOp[]);
/** Keys that name JavaScript object machinery rather than data. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_PATH_SEGMENTS = 16;

/** Every filter name (the part before any [bracket]), as GET /logs takes them. */
export const FILTER_NAMES: ReadonlySet<string> = new Set([...EXACT, ...NUMBERS, ...PARTIAL, ...JSON_COLUMNS, ...OTHERS]);

/** `name[a][b]` → base `name` and bracket contents `['a', 'b']`; null when the name is not of that form. */
export function splitParamName(name: string): { base: string; keys: string[] } | null {
    const m = /^([A-Za-z_]+)((?:\[[^[\]]*\])*)$/.exec(name);
    if (!m) return formField(name);
    const keys = m[2] ? m[2].slice(1, -1).split('][') : [];
    // A form field's name is one key however it is bracketed: form[user][name] and form[user[name]] name `user[name]`.
    if (m[1] === 'form' && keys.length > 1) return { base: 'form', keys: [`${keys[0]}${keys.slice(1).map((k) => `[${k}]`).join('')}`] };
    return { base: m[1]!, keys };
}

/** `form[<name>]` where the name holds brackets itself (`form[tags[]]`, as PHP-style forms name fields). */
function formField(name: string): { base: string; keys: string[] } | null {
    return name.startsWith('form[') && name.endsWith(']') && name.length > 6 ? { base: 'form', keys: [name.slice(5, -1)] } : null;
}

/** Whether `base` names a filter. */
export function isFilterName(base: string): boolean {
    return FILTER_NAMES.has(base);
}

/** Whether `keys` is a range operator (`[gte]` ...): an empty value then means no filter, as for any unkeyed one. */
export const isRangeKey = (keys: readonly string[]): boolean => keys.length === 1 && RANGE_OPS.has(keys[0]!);

/**
 * The filter of one parameter. `value` is not empty (empty filters are ignored upstream, except
 * keyed ones, which may match an empty string). Throws a 400 naming the parameter.
 */
export function parseFilter(name: string, base: string, keys: string[], value: string): Filter {
    if (JSON_COLUMNS.has(base)) return jsonFilter(name, base as JsonColumn, keys, value);
    if (keys.length > 0 && !NUMBERS.has(base)) throw badParam(name, 'takes no [bracket] part');
    if (NUMBERS.has(base)) {
        if (keys.length > 1 || (keys.length === 1 && !RANGE_OPS.has(keys[0]!))) throw badParam(name, 'has an unknown operator: use [gte], [gt], [lte] or [lt]');
        const op = (keys[0] ?? 'eq') as RangeOp;
        const field = base as NumberField;
        return { kind: 'range', field, op, value: field === 'timestamp' ? parseTimestamp(name, value) : parseNumber(name, value) };
    }
    if (base === 'startTime') return { kind: 'range', field: 'timestamp', op: 'gte', value: parseTimestamp(name, value) };
    if (base === 'endTime') return { kind: 'range', field: 'timestamp', op: 'lte', value: parseTimestamp(name, value) };
    if (base === 'method') return { kind: 'exact', field: 'method', value: value.toUpperCase() };
    if (EXACT.has(base)) return { kind: 'exact', field: base as ExactField, value };
    if (PARTIAL.has(base)) return { kind: 'partial', field: base as PartialField, value };
    if (base === 'remoteIp') return { kind: 'ip', ...parseIpRange(name, value) };
    if (base === 'hasFiles') return { kind: 'hasFiles', value: parseBool(name, value) };
    return { kind: 'bool', field: 'signatureValid', value: parseBool(name, value) };
}

function jsonFilter(name: string, column: JsonColumn, keys: string[], value: string): Filter {
    if (keys.length === 0) return { kind: 'text', column, value };
    const flat = FLAT_COLUMNS.has(column);
    if (flat && keys.length > 1) throw badParam(name, 'takes a single [key]');
    // body[a.b] and body[a][b] both address a nested key.
    const path = flat ? keys : keys.flatMap((k) => k.split('.'));
    if (path.length > MAX_PATH_SEGMENTS) throw badParam(name, `has more than ${MAX_PATH_SEGMENTS} key segments`);
    for (const segment of path) {
        if (segment === '') throw badParam(name, 'has an empty key');
        if (FORBIDDEN_KEYS.has(segment)) throw badParam(name, `may not use the key '${segment}'`);
        // SQLite JSON paths cannot escape these, so such keys cannot be addressed.
        if (/["\\\u0000-\u001f]/.test(segment)) throw badParam(name, 'has a key with a quote, backslash or control character');
    }
    // Node lower-cases request header names; response header names are matched ignoring case.
    const normalized = column === 'headers' || column === 'responseHeaders' ? path.map((s) => s.toLowerCase()) : path;
    return { kind: 'keyed', column, path: normalized, value };
}
