import { FILTER_NAMES, isRangeKey, parseFilter, splitParamName } from './parse.js';
import type { Filter } from './types.js';
import { badParam } from './values.js';

/** More filters than this make no sense and would only grow the SQL. */
const MAX_FILTERS = 32;
const MAX_VALUE_LENGTH = 2048;
/** `key` carries the auth key, `token` the Apify token of a Standby caller; `_` is a cache buster. None is a filter anywhere. */
const PASSIVE = new Set(['key', 'token', '_']);

/** Where a filter set comes from, and what it may hold. */
export interface FilterSetOptions {
    /** Who takes the parameters, as messages name it: 'GET /logs', 'DELETE /logs', 'GET /log-stream', 'rule condition'. */
    what: string;
    /** The filter names (bases) allowed; every filter when absent. */
    allow?: ReadonlySet<string>;
    /** Names that are not filters and that the caller reads itself (paging, a stream's own parameters). */
    skip?: ReadonlySet<string>;
}

/** A parsed filter set: the filters, and each applied parameter as supplied (a repeated one as an array). */
export interface FilterSet {
    filters: Filter[];
    echo: Record<string, string | string[]>;
}

/**
 * The filters of `entries` ([name, value] pairs: URLSearchParams or an object's entries), the one
 * way every caller reads them. An empty value means "no filter" (as a form sends it), except for a
 * keyed match on ''. Throws a BadRequestError naming the parameter: an unknown or disallowed name,
 * a bad value, a value over 2,048 characters, more than 32 filters.
 */
export function parseFilterSet(entries: Iterable<readonly [string, string]>, options: FilterSetOptions): FilterSet {
    const filters: Filter[] = [];
    const echo = Object.create(null) as Record<string, string | string[]>;
    const allowed = options.allow ?? FILTER_NAMES;
    for (const [name, value] of entries) {
        if (PASSIVE.has(name) || options.skip?.has(name)) continue;
        const parts = splitParamName(name);
        if (!parts || !allowed.has(parts.base)) throw badParam(name, `is not a ${options.what} parameter`);
        if (value.length > MAX_VALUE_LENGTH) throw badParam(name, `is longer than ${MAX_VALUE_LENGTH} characters`);
        if (value === '' && !(parts.keys.length > 0 && !isRangeKey(parts.keys))) continue;
        if (filters.length >= MAX_FILTERS) throw badParam(name, `exceeds the maximum of ${MAX_FILTERS} filters`);
        filters.push(parseFilter(name, parts.base, parts.keys, value));
        const prev = echo[name];
        echo[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    return { filters, echo: { ...echo } };
}
