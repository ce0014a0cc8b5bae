import { parseFilterSet } from '../filters/set.js';
import { badParam } from '../filters/values.js';
import type { LogsQuery } from '../storage/query-types.js';
import { decodeCursor } from './logs-query/cursor.js';
import { parseSort } from './logs-query/sort.js';
import { parseCount } from './logs-query/values.js';

/** Default and ceiling of `limit` (SPEC.md: default 10000, minimum 1). */
export const MAX_LIMIT = 10_000;
/** The paging and order parameters of GET /logs: everything else but the passive names is a filter. */
export const PAGING_PARAMS: ReadonlySet<string> = new Set(['limit', 'offset', 'sort', 'cursor']);

/** A parsed GET /logs request: the query for the store and the raw filters to echo back. */
export interface ParsedLogsRequest {
    query: LogsQuery;
    /** Each applied filter parameter as supplied; a repeated one as an array. */
    echo: Record<string, string | string[]>;
}

/** Parses GET /logs query parameters. Throws a BadRequestError naming the parameter. */
export function parseLogsRequest(search: URLSearchParams): ParsedLogsRequest {
    const seen = new Set<string>();
    for (const name of search.keys()) {
        if (!PAGING_PARAMS.has(name)) continue;
        if (seen.has(name)) throw badParam(name, 'is given more than once');
        seen.add(name);
    }
    const { filters, echo } = parseFilterSet(search, { what: 'GET /logs', skip: PAGING_PARAMS });
    const sort = parseSort(search.get('sort'));
    const query: LogsQuery = {
        filters,
        sort,
        limit: parseCount('limit', search.get('limit'), MAX_LIMIT, 1, MAX_LIMIT),
        offset: parseCount('offset', search.get('offset'), 0, 0, Number.MAX_SAFE_INTEGER),
    };
    const cursor = search.get('cursor');
    if (cursor !== null) query.cursor = decodeCursor(cursor, sort);
    return { query, echo };
}

/** Parses GET /logs query parameters into a validated LogsQuery. Throws BadRequestError naming the parameter. */
export function parseLogsQuery(search: URLSearchParams): LogsQuery {
    return parseLogsRequest(search).query;
}
