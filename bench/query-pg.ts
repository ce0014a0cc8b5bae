// GET /logs queries on PostgreSQL at a million events (issue 23 item 6). See bench/README.md.
//
//   node --import tsx bench/query-pg.ts [--events 1000000] [--reps 7] [--url postgres://…] [--fast]
//
// Starts a throwaway PostgreSQL (test/helpers/pg-server.ts, fsync on unless --fast; or uses --url,
// loading it only when it holds fewer events), loads the SQLite bench's events (bench/query-data.ts)
// with the real schema and query indexes, VACUUM ANALYZE, then times runPgQuery as EventLog.query
// runs it: the median of --reps runs after one warm-up, each figure beside its ceiling.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { encodeCursor } from '../src/http/logs-query/cursor.js';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { runPgQuery } from '../src/storage/pg/query/run.js';
import { migrate } from '../src/storage/pg/schema.js';
import { SORT_FIELDS } from '../src/storage/query-types.js';
import { startPgServer, type PgServer } from '../test/helpers/pg-server.js';
import { BENCH_START, BENCH_WEBHOOKS } from './query-data.js';
import { loadPgEvents } from './query-pg-load.js';
import { percentile } from './query-service.js';

const { values: args } = parseArgs({
    options: {
        events: { type: 'string', default: '1000000' },
        reps: { type: 'string', default: '7' },
        url: { type: 'string' },
        fast: { type: 'boolean', default: false },
        only: { type: 'string' },
    },
});
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

interface Case {
    name: string;
    qs: string[];
    ceiling: number;
}

/** One filter of each kind the API has, written as a query string. */
const FILTERS: [name: string, qs: string][] = [
    ['webhookId', `webhookId=${BENCH_WEBHOOKS[3]}`],
    ['method (8%)', 'method=PUT'],
    ['statusCode =404', 'statusCode=404'],
    ['statusCode 400–499', 'statusCode[gte]=400&statusCode[lt]=500'],
    ['size > 1200', 'size[gt]=1200'],
    ['processingTime < 1', 'processingTime[lt]=1'],
    ['timestamp, one day', `startTime=${new Date(BENCH_START + 10 * 86_400_000).toISOString()}&endTime=${new Date(BENCH_START + 11 * 86_400_000).toISOString()}`],
    ['id', 'id=ev00500000'],
    ['requestId (none)', 'requestId=0123456789abcdef01234'],
    ['remoteIp /16', 'remoteIp=10.1.0.0/16'],
    ['signatureValid', 'signatureValid=true'],
    ['signatureProvider', 'signatureProvider=stripe'],
    ['requestUrl partial', 'requestUrl=n=42'],
    ['contentType partial', 'contentType=xml'],
    ['userAgent partial', 'userAgent=hookshot'],
    ['headers substring', 'headers=x-delivery-id%22%3A%22abc'],
    ['query substring', 'query=%22n%22%3A%227'],
    ['responseHeaders substring', 'responseHeaders=text/html'],
    ['responseBody substring', 'responseBody=nope'],
    ['body keyed, 1.3%', 'body[data.object.status]=requires_action'],
    ['body keyed, 25%', 'body[type]=order.created'],
    ['headers keyed', 'headers[accept]=text/html'],
    ['query keyed', 'query[n]=42'],
    ['responseHeaders keyed', 'responseHeaders[content-type]=text/html'],
];

const SUBSTRING: Case[] = [
    { name: 'body substring, no match (cursor)', qs: ['cursor=&body=no-such-term&limit=100'], ceiling: 100 },
    { name: 'body substring, no match (offset, total)', qs: ['body=no-such-term&limit=100'], ceiling: 100 },
    { name: 'body substring, 25% match (cursor)', qs: ['cursor=&body=order.created&limit=100'], ceiling: 100 },
    { name: 'body substring, 25% match (offset, total)', qs: ['body=order.created&limit=100'], ceiling: 100 },
    { name: 'body substring, 0.02% match (offset, total)', qs: ['body=user4240@example.com&limit=100'], ceiling: 100 },
];

/** Cursors at the 40%, 50% and 60% newest event (400,000 to 600,000 deep at a million), made from real rows. */
async function deepCursors(pool: pg.Pool, events: number): Promise<string[]> {
    const cursors: string[] = [];
    for (const at of [0.4, 0.5, 0.6].map((f) => Math.floor(f * events))) {
        const [item] = (await runPgQuery(pool, parseLogsQuery(new URLSearchParams(`offset=${at}&limit=1`)), undefined, 120_000)).items;
        if (!item) throw new Error(`no event at offset ${at}`);
        cursors.push(encodeCursor({ values: [Date.parse(item.timestamp)], id: item.id }, [{ field: 'timestamp', dir: 'desc' }]));
    }
    return cursors;
}

function cases(cursors: string[]): Case[] {
    const list: Case[] = [
        { name: 'newest 100 (cursor)', qs: ['cursor=&limit=100'], ceiling: 10 },
        { name: 'newest 100 (offset, total)', qs: ['limit=100'], ceiling: 10 },
        { name: 'cursor page 400k–600k deep', qs: cursors.map((c) => `cursor=${c}&limit=100`), ceiling: 10 },
    ];
    for (const [name, qs] of FILTERS) {
        list.push({ name: `${name} (offset, total)`, qs: [`${qs}&limit=100`], ceiling: 100 });
        for (const field of SORT_FIELDS) {
            for (const dir of ['asc', 'desc']) list.push({ name: `${name} sort ${field}:${dir} (cursor)`, qs: [`cursor=&${qs}&sort=${field}:${dir}&limit=100`], ceiling: 100 });
        }
    }
    return [...list, ...SUBSTRING];
}

async function time(pool: pg.Pool, c: Case, reps: number): Promise<{ first: number; median: number; max: number; rows: number; total?: number }> {
    const queries = c.qs.map((qs) => parseLogsQuery(new URLSearchParams(qs)));
    const warm = performance.now();
    let page = await runPgQuery(pool, queries[0]!, undefined, 120_000);
    const first = performance.now() - warm;
    // A case ten times over its ceiling is not timed again: its verdict is plain (its first run stands).
    const runs = first > 10 * c.ceiling ? 0 : reps;
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
        const started = performance.now();
        page = await runPgQuery(pool, queries[i % queries.length]!, undefined, 120_000);
        times.push(performance.now() - started);
    }
    if (times.length === 0) times.push(first);
    return { first, median: percentile(times, 50), max: Math.max(...times), rows: page.items.length, ...(page.total === undefined ? {} : { total: page.total }) };
}

async function main(): Promise<void> {
    let server: PgServer | undefined;
    let url = args.url;
    if (!url) {
        server = await startPgServer({ fast: args.fast });
        url = await server.createDatabase('bench');
        log(`PostgreSQL: throwaway server, fsync ${args.fast ? 'off' : 'on'}`);
    }
    const wanted = Number(args.events);
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    try {
        const have = await pool.query<{ n: string }>('SELECT count(*) AS n FROM events').then((r) => Number(r.rows[0]!.n), () => 0);
        if (have < wanted) {
            if (have > 0) throw new Error(`the database holds ${have} events, fewer than ${wanted}: use an empty one`);
            log(`Loading ${wanted} events`);
            const { loadMs, indexMs } = await loadPgEvents(url, wanted, log);
            log(`Loaded in ${(loadMs / 1000).toFixed(0)} s; indexes and VACUUM ANALYZE in ${(indexMs / 1000).toFixed(0)} s`);
        } else {
            log(`Reusing ${have} events (migrating: indexes or functions this build adds)`);
            await migrate(pool);
        }
        const reps = Number(args.reps);
        const all = cases(await deepCursors(pool, Math.max(have, wanted))).filter((c) => !args.only || c.name.includes(args.only));
        log(`\n| case | first ms | median ms | max ms | ceiling ms | rows | total | ok |\n|---|---|---|---|---|---|---|---|`);
        let failed = 0;
        const worst: number[] = [];
        for (const c of all) {
            const t = await time(pool, c, reps);
            const ok = t.median < c.ceiling;
            if (!ok) failed++;
            worst.push(t.median);
            log(`| ${c.name} | ${ms(t.first)} | ${ms(t.median)} | ${ms(t.max)} | ${c.ceiling} | ${t.rows} | ${t.total ?? ''} | ${ok ? 'yes' : 'NO'} |`);
        }
        log(`\n${all.length} cases, ${failed} over their ceiling; slowest median ${ms(Math.max(...worst))} ms`);
    } finally {
        await pool.end();
        await server?.stop();
    }
}

await main();
