import { BadRequestError } from '../errors.js';
import type { LogsQuery } from '../storage/query-types.js';

/** Parses GET /logs query parameters into a validated LogsQuery. Throws BadRequestError naming the parameter. */
export function parseLogsQuery(search: URLSearchParams): LogsQuery {
    const int = (name: string, fallback: number, min: number): number => {
        const text = search.get(name);
        if (text === null || text === '') return fallback;
        const n = Number(text);
        if (!Number.isFinite(n)) throw new BadRequestError(`Parameter '${name}' must be a number`);
        return Math.max(min, Math.floor(n));
    };
    return { filters: [], sort: [{ field: 'timestamp', dir: 'desc' }], limit: int('limit', 10000, 1), offset: int('offset', 0, 0) };
}
