import type { Filter, LogsQuery } from '../storage/query-types.js';
import { decodeCursor } from './logs-query/cursor.js';
import { isFilterName, parseFilter, splitParamName } from './logs-query/filters.js';
import { parseSort } from './logs-query/sort.js';
import { badParam, parseCount } from './logs-query/values.js';

/** Default and ceiling of `limit` (SPEC.md: default 10000, minimum 1). */
export const MAX_LIMIT = 10_000;
/** More filters than this make no sense and would only grow the SQL. */
const MAX_FILTERS = 32;
const MAX_VALUE_LENGTH = 2048;
const CONTROL = new Set(['limit', 'offset', 'sort', 'cursor']);
/** `key` carries the auth key, `token` the Apify token of a Standby caller; `_` is a cache buster. None is a filter. */
const PASSIVE = new Set(['key', 'token', '_']);

/** A parsed GET /logs request: the query for the store and the raw filters to echo back. */
export interface ParsedLogsRequest {
    query: LogsQuery;
    /** Each applied filter parameter as supplied; a repeated one as an array. */
    echo: Record<string, string | string[]>;
}

/** Parses GET /logs query parameters. Throws a BadRequestError naming the parameter. */
export function parseLogsRequest(search: URLSearchParams): ParsedLogsRequest {
    const filters: Filter[] = [];
    const echo: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    const seen = new Set<string>();
    for (const [name, value] of search) {
        if (PASSIVE.has(name)) continue;
        if (CONTROL.has(name)) {
            if (seen.has(name)) throw badParam(name, 'is given more than once');
            seen.add(name);
            continue;
        }
        const parts = splitParamName(name);
        if (!parts || !isFilterName(parts.base)) throw badParam(name, 'is not a GET /logs parameter');
        if (value.length > MAX_VALUE_LENGTH) throw badParam(name, `is longer than ${MAX_VALUE_LENGTH} characters`);
        // An empty value means "no filter" (as a form sends it), except for a keyed match on ''.
        if (value === '' && !(parts.keys.length > 0 && !isRangeKey(parts.keys))) continue;
        if (filters.length >= MAX_FILTERS) throw badParam(name, `exceeds the maximum of ${MAX_FILTERS} filters`);
        filters.push(parseFilter(name, parts.base, parts.keys, value));
        const prev = echo[name];
        echo[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    const sort = parseSort(search.get('sort'));
    const query: LogsQuery = {
        filters,
        sort,
        limit: parseCount('limit', search.get('limit'), MAX_LIMIT, 1, MAX_LIMIT),
        offset: parseCount('offset', search.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER),
    };
    const cursor = search.get('cursor');
    if (cursor !== null) query.cursor = decodeCursor(cursor, sort);
    return { query, echo: { ...echo } };
}

/** Parses GET /logs query parameters into a validated LogsQuery. Throws BadRequestError naming the parameter. */
export function parseLogsQuery(search: URLSearchParams): LogsQuery {
    return parseLogsRequest(search).query;
}

const isRangeKey = (keys: string[]): boolean => keys.length === 1 && ['gte', 'gt', 'lte', 'lt'].includes(keys[0]!);
