// The GET /logs query matrix (issue 23 item 6, issue 39 item 1): one list of cases for every backend's
// bench (bench/query-pg.ts, bench/query-sqlite.ts) and for the differential test that pins their
// answers (test/query/matrix-differential.test.ts). Values fit bench/query-data.ts's events.
import { encodeCursor } from '../src/http/logs-query/cursor.js';
import { SORT_FIELDS } from '../src/storage/query-types.js';
import { BENCH_START, BENCH_WEBHOOKS } from './query-data.js';
import { percentile } from './query-service.js';

/** Which ceiling a case is held to. */
export type CaseKind = 'page' | 'filter' | 'substring';

/** Ceilings in ms per kind of case; each backend's bench records its figures against its own. */
export type Ceilings = Readonly<Record<CaseKind, number>>;

/** Issue 39 item 2, at 1M events over HTTP. */
export const SQLITE_CEILINGS: Ceilings = { page: 5, filter: 50, substring: 100 };
/** Issue 23 item 6: what bench/query-pg.ts's recorded figures stand against. */
export const PG_CEILINGS: Ceilings = { page: 10, filter: 100, substring: 100 };

/** One case: a fixed query string, or several rotated through (repetitions take them in turn). */
export interface MatrixCase {
    name: string;
    qs: string[];
    kind: CaseKind;
    ceiling: number;
}

/**
 * One filter of each kind the API has, written as a query string. Substring ones (partial fields,
 * JSON-text substrings) are held to the substring ceiling; exact, range, address, boolean and keyed
 * ones to the filter ceiling.
 */
export const FILTERS: readonly (readonly [name: string, qs: string, kind: 'filter' | 'substring'])[] = [
    ['webhookId', `webhookId=${BENCH_WEBHOOKS[3]}`, 'filter'],
    ['method (8%)', 'method=PUT', 'filter'],
    ['statusCode =404', 'statusCode=404', 'filter'],
    ['statusCode 400–499', 'statusCode[gte]=400&statusCode[lt]=500', 'filter'],
    ['size > 1200', 'size[gt]=1200', 'filter'],
    ['processingTime < 1', 'processingTime[lt]=1', 'filter'],
    ['timestamp, one day', `startTime=${new Date(BENCH_START + 10 * 86_400_000).toISOString()}&endTime=${new Date(BENCH_START + 11 * 86_400_000).toISOString()}`, 'filter'],
    ['id', 'id=ev00500000', 'filter'],
    ['requestId (none)', 'requestId=0123456789abcdef01234', 'filter'],
    ['remoteIp /16', 'remoteIp=10.1.0.0/16', 'filter'],
    ['signatureValid', 'signatureValid=true', 'filter'],
    ['signatureProvider', 'signatureProvider=stripe', 'filter'],
    ['requestUrl partial', 'requestUrl=n=42', 'substring'],
    ['contentType partial', 'contentType=xml', 'substring'],
    ['userAgent partial', 'userAgent=hookshot', 'substring'],
    ['headers substring', 'headers=x-delivery-id%22%3A%22abc', 'substring'],
    ['query substring', 'query=%22n%22%3A%227', 'substring'],
    ['responseHeaders substring', 'responseHeaders=text/html', 'substring'],
    ['responseBody substring', 'responseBody=nope', 'substring'],
    ['body keyed, 1.3%', 'body[data.object.status]=requires_action', 'filter'],
    ['body keyed, 25%', 'body[type]=order.created', 'filter'],
    ['headers keyed', 'headers[accept]=text/html', 'filter'],
    ['query keyed', 'query[n]=42', 'filter'],
    ['responseHeaders keyed', 'responseHeaders[content-type]=text/html', 'filter'],
];

/** Body substrings found nowhere, in a quarter, and in 0.02% of the events. */
export const SUBSTRINGS: readonly (readonly [name: string, qs: string])[] = [
    ['body substring, no match (cursor)', 'cursor=&body=no-such-term&limit=100'],
    ['body substring, no match (offset, total)', 'body=no-such-term&limit=100'],
    ['body substring, 25% match (cursor)', 'cursor=&body=order.created&limit=100'],
    ['body substring, 25% match (offset, total)', 'body=order.created&limit=100'],
    ['body substring, 0.02% match (offset, total)', 'body=user4240@example.com&limit=100'],
];

/** Where the deep pages start: at the 40%, 50% and 60% newest event. */
export const DEEP_FRACTIONS: readonly number[] = [0.4, 0.5, 0.6];

/** A cursor of the default sort (newest first) placed right after `item`, as a page ending there would hand out. */
export function cursorAfter(item: { timestamp: string; id: string }): string {
    return encodeCursor({ values: [Date.parse(item.timestamp)], id: item.id }, [{ field: 'timestamp', dir: 'desc' }]);
}

/** What the deep pages need: cursors made from real rows, and (when given) the offsets of the deep offset pages. */
export interface DeepPages {
    cursors: readonly string[];
    offsets?: readonly number[];
}

/**
 * Every case, in the order the tables print them: the pages, then each filter in offset mode with
 * its total and in cursor mode under every sort field in both directions, then the body substrings.
 */
export function matrixCases(deep: DeepPages, ceilings: Ceilings): MatrixCase[] {
    const make = (name: string, qs: string[], kind: CaseKind): MatrixCase => ({ name, qs, kind, ceiling: ceilings[kind] });
    const list: MatrixCase[] = [
        make('newest 100 (cursor)', ['cursor=&limit=100'], 'page'),
        make('newest 100 (offset, total)', ['limit=100'], 'page'),
        make('cursor page 400k–600k deep', deep.cursors.map((c) => `cursor=${c}&limit=100`), 'page'),
    ];
    if (deep.offsets) list.push(make('offset page 400k–600k deep (total)', deep.offsets.map((o) => `offset=${o}&limit=100`), 'page'));
    for (const [name, qs, kind] of FILTERS) {
        list.push(make(`${name} (offset, total)`, [`${qs}&limit=100`], kind));
        for (const field of SORT_FIELDS) {
            for (const dir of ['asc', 'desc']) list.push(make(`${name} sort ${field}:${dir} (cursor)`, [`cursor=&${qs}&sort=${field}:${dir}&limit=100`], kind));
        }
    }
    for (const [name, qs] of SUBSTRINGS) list.push(make(name, [qs], 'substring'));
    return list;
}

/** A case's timing: its first run (the warm-up), the median and max of the timed runs, and the last answer's rows and total. */
export interface CaseTiming {
    first: number;
    median: number;
    max: number;
    rows: number;
    total?: number;
}

/**
 * Times a case the way both backends' benches do: `run(i)` answers the case's i-th query string (in
 * turn); one warm-up, then the median of `reps` runs. A case whose warm-up is ten times over its
 * ceiling is not timed again: its verdict is plain, and its first run stands as its median.
 */
export async function timeMatrixCase(c: MatrixCase, reps: number, run: (qs: string) => Promise<{ rows: number; total?: number }>): Promise<CaseTiming> {
    const once = async (i: number): Promise<{ t: number; rows: number; total?: number }> => {
        const started = performance.now();
        const answer = await run(c.qs[i % c.qs.length]!);
        return { t: performance.now() - started, ...answer };
    };
    let last = await once(0);
    const first = last.t;
    const times: number[] = [];
    for (let i = 0; i < (first > 10 * c.ceiling ? 0 : reps); i++) times.push((last = await once(i)).t);
    if (times.length === 0) times.push(first);
    return { first, median: percentile(times, 50), max: Math.max(...times), rows: last.rows, ...(last.total === undefined ? {} : { total: last.total }) };
}
