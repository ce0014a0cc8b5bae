import { encodeCursor } from '../src/http/logs-query/cursor.js';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import type { LogsQuery } from '../src/storage/query-types.js';
import type { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import { BENCH_WEBHOOKS } from './query-data.js';
import { percentile } from './query-service.js';

/** One kind of query to time: a fixed query string, or several rotated through. */
export interface QueryCase {
    name: string;
    /** Query strings; repetitions take them in turn. */
    qs: string[];
    /** p50 target in ms, when the issue sets one. */
    target?: number;
}

/** A measured case. */
export interface QueryTiming {
    name: string;
    qs: string;
    reps: number;
    /** The very first run: for offset mode, the one that counts from scratch (later ones reuse the count). */
    first: number;
    p50: number;
    p95: number;
    target?: number;
    rows: number;
    total: number | undefined;
}

/** Cursors pointing at the 400,000th, 500,000th and 600,000th newest event, made from real rows. */
export async function deepCursors(store: SqliteEventStore): Promise<string[]> {
    const cursors: string[] = [];
    for (const at of [400_000, 500_000, 600_000]) {
        const [item] = (await store.query(parseLogsQuery(new URLSearchParams(`offset=${at}&limit=1`)))).items;
        if (!item) throw new Error(`no event at offset ${at}`);
        cursors.push(encodeCursor({ values: [Date.parse(item.timestamp)], id: item.id }, [{ field: 'timestamp', dir: 'desc' }]));
    }
    return cursors;
}

/** The cases of bench/README.md, in its order. The six kinds first, then a few for context. */
export function queryCases(cursors: string[]): QueryCase[] {
    const wh = BENCH_WEBHOOKS[3]!;
    return [
        { name: 'newest 100 (offset mode, with total)', qs: ['limit=100'], target: 5 },
        { name: 'newest 100 (cursor mode)', qs: ['cursor=&limit=100'], target: 5 },
        { name: 'cursor page ~500,000 deep', qs: cursors.map((c) => `cursor=${c}&limit=100`), target: 5 },
        { name: 'status 400–499 sorted by size (offset, with total)', qs: ['statusCode[gte]=400&statusCode[lt]=500&sort=size:desc&limit=100'], target: 50 },
        { name: 'status 400–499 sorted by size (cursor)', qs: ['cursor=&statusCode[gte]=400&statusCode[lt]=500&sort=size:desc&limit=100'], target: 50 },
        { name: 'keyed body filter, 1.3% match (cursor)', qs: ['cursor=&body[data.object.status]=requires_action&limit=100'], target: 50 },
        { name: 'keyed body filter, 25% match (cursor)', qs: ['cursor=&body[type]=order.created&limit=100'], target: 50 },
        { name: 'keyed body filter, 1.3% match (offset, with total)', qs: ['body[data.object.status]=requires_action&limit=100'], target: 50 },
        { name: 'keyed body filter, 25% match (offset, with total)', qs: ['body[type]=order.created&limit=100'], target: 50 },
        { name: 'body substring, no match: full scan (cursor)', qs: distinct((i) => `cursor=&body=no-such-term-${i}&limit=100`), target: 400 },
        { name: 'body substring, no match: full scan (offset, with total)', qs: distinct((i) => `body=no-such-term-${i}&limit=100`), target: 400 },
        { name: 'body substring, 25% match (cursor)', qs: caseVariants('order.created').map((t) => `cursor=&body=${t}&limit=100`), target: 400 },
        { name: 'body substring, 25% match (offset, total counted every time)', qs: caseVariants('order.created').map((t) => `body=${t}&limit=100`), target: 400 },
        { name: 'body substring, 25% match (offset, total reused after the first run)', qs: ['body=order.created&limit=100'], target: 400 },
        { name: 'offset 500,000', qs: ['offset=500000&limit=100'] },
        { name: 'webhookId, newest 100 (offset)', qs: [`webhookId=${wh}&limit=100`] },
        { name: 'remoteIp 10.1.0.0/16, newest 100 (offset)', qs: ['remoteIp=10.1.0.0/16&limit=100'] },
        { name: 'method=PUT, unindexed (cursor)', qs: ['cursor=&method=PUT&limit=100'] },
        { name: 'method=PUT, unindexed (offset: total scans events)', qs: ['method=PUT&limit=100'] },
        { name: 'sort by userAgent, unindexed (cursor)', qs: ['cursor=&sort=userAgent:asc&limit=100'] },
    ];
}

/** 64 query strings that differ, so that no run reuses another's count. */
const distinct = (make: (i: number) => string): string[] => Array.from({ length: 64 }, (_, i) => make(i));
/** Spellings of `text` in different letter case: the same matches (search ignores case), different queries. */
const caseVariants = (text: string): string[] => distinct((i) => [...text].map((c, j) => ((i >> j) & 1 ? c.toUpperCase() : c)).join(''));

/**
 * Times one case through `run` (the worker pool, as the API uses it): a few warm-up runs, then
 * enough repetitions for about `budgetMs` (between 7 and 300).
 */
export async function timeCase(c: QueryCase, run: (q: LogsQuery) => Promise<{ items: unknown[]; total?: number }>, budgetMs: number): Promise<QueryTiming> {
    const queries = c.qs.map((qs) => parseLogsQuery(new URLSearchParams(qs)));
    let last: { items: unknown[]; total?: number } = { items: [] };
    const once = async (i: number): Promise<number> => {
        const started = performance.now();
        last = await run(queries[i % queries.length]!);
        return performance.now() - started;
    };
    const first = await once(0);
    const warm = [first, await once(1), await once(2)];
    const reps = Math.min(300, Math.max(7, Math.ceil(budgetMs / Math.max(0.05, Math.min(...warm)))));
    const times: number[] = [];
    for (let i = 3; i < reps + 3; i++) times.push(await once(i));
    const timing: QueryTiming = { name: c.name, qs: c.qs[0]!, reps, first, p50: percentile(times, 50), p95: percentile(times, 95), rows: last.items.length, total: last.total };
    if (c.target !== undefined) timing.target = c.target;
    return timing;
}
