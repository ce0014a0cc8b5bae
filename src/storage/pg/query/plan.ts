import type { Filter, SortRule } from '../../query-types.js';
import { urlPairOf } from '../query-in-url.js';

/** How many matches decide between walking the sort index and sorting the matches: √(reach · events). */
export const probeCap = (reach: number, events: number): number => Math.max(100, Math.ceil(Math.sqrt(reach * Math.max(1, events))));

// Filters a (column, ts, id) index serves together with a timestamp sort (query-indexes.ts).
const servedWithTimestamp = (f: Filter): boolean =>
    (f.kind === 'exact' && (f.field === 'webhookId' || f.field === 'method' || f.field === 'requestId' || f.field === 'signatureProvider' || f.field === 'answeredBy'))
    || (f.kind === 'range' && f.field === 'statusCode' && f.op === 'eq');

/**
 * Whether a page may be worth sorting in memory, which a probe then decides (run.ts). PostgreSQL
 * plans with statistics, but it assumes the matches spread evenly along the sort index: a filter
 * correlated with the sort (n=42 among URLs sorted by URL, an address block sorted by size) made it
 * walk most of a million-row index for a page of 100 (6 s). Walking the sort index reads about
 * reach·N/M rows for M matches; fetching the M matches through the filter's own index and sorting
 * them costs M: the first wins when M² > reach·N, so counting matches up to √(reach·N) tells (the
 * SQLite backend decides the same way, sqlite/query/plan.ts). Only b-tree filters are probed: a
 * probe through a trigram index does the search's own work again (it doubled a headers substring
 * search).
 */
export function mayProbe(filters: readonly Filter[], order: readonly SortRule[]): boolean {
    return mayFallBack(filters, order) && filters.every((f) => f.kind === 'exact' || f.kind === 'range' || f.kind === 'ip' || f.kind === 'bool');
}

/**
 * Whether the planner's plan runs for TRY_MS only, the matches then sorted in memory (run.ts): a
 * filter the sort's own index does not serve. Not for no filter, an id or request id (a row or
 * two), filters that the sort's own index serves (a timestamp sort under webhookId or status, a
 * range on the sort field), or a body substring: a body search reads each body it tests, and the
 * planner's plan (each table's page merged, statements.ts) is the best there is. A keyed body
 * filter does fall back: its JSON walk then runs only on the candidates the page still needs.
 */
export function mayFallBack(filters: readonly Filter[], order: readonly SortRule[]): boolean {
    if (filters.length === 0) return false;
    if (filters.some((f) => f.kind === 'text' && f.column === 'body')) return false;
    if (filters.some((f) => f.kind === 'exact' && (f.field === 'id' || f.field === 'requestId'))) return false;
    const lead = order[0]!.field;
    const own = (f: Filter): boolean => (f.kind === 'range' && f.field === lead) || (lead === 'timestamp' && servedWithTimestamp(f))
        || (f.kind === 'exact' && f.field === lead) || (f.kind === 'ip' && lead === 'remoteIp') || (f.kind === 'bool' && lead === 'signatureValid');
    return !filters.every(own);
}

/** The fields a sort's index holds: its keys, then remoteIp, which every such index includes (query-indexes.ts). */
function indexedFields(lead: SortRule['field']): ReadonlySet<string> {
    const keys = lead === 'id' ? ['id'] : lead === 'timestamp' ? ['timestamp', 'id'] : [lead, 'timestamp', 'id'];
    return new Set([...keys, 'remoteIp']);
}

/**
 * Whether the page's positions can come from the sort's index alone (an index-only scan: a row walked
 * is tested in its index entry, ~15 times faster than in the table), the rows then read whole
 * (statements.ts).
 * 'exact': the index holds every column the order and the filters read, so it decides, and only the
 * page's rows are read. 'signature': it holds them but for keyed body filters, whose key signature
 * (body-keys.ts keySignature) the index holds instead, and query substrings sorted by URL, tested on
 * the URL (query-in-url.ts); the rows they let through are read and tested, in sort order, until
 * the page is full. Only where the filters may leave the planner walking that index (mayFallBack).
 */
export function walkInIndex(filters: readonly Filter[], order: readonly SortRule[]): 'exact' | 'signature' | undefined {
    const fields = indexedFields(order[0]!.field);
    if (!mayFallBack(filters, order) || !order.every((r) => fields.has(r.field))) return undefined;
    const field = (f: Filter): string | undefined => (f.kind === 'ip' ? 'remoteIp' : f.kind === 'exact' || f.kind === 'range' || f.kind === 'bool' ? f.field : undefined);
    // Tested in the entry by a superset: a keyed body filter's key signature, a query substring's pair in the URL (query-in-url.ts).
    const signed = (f: Filter): boolean => (f.kind === 'keyed' && f.column === 'body')
        || (f.kind === 'text' && f.column === 'query' && order[0]!.field === 'requestUrl' && urlPairOf(f.value) !== undefined);
    if (!filters.every((f) => signed(f) || fields.has(field(f) ?? ''))) return undefined;
    return filters.some(signed) ? 'signature' : 'exact';
}

/** How long the planner's plan runs before the matches are sorted in memory instead, ms (bench/README.md). */
export const TRY_MS = 40;

/** Most matches sorted in memory then (bench/README.md). */
export const SORT_MAX = 40_000;
