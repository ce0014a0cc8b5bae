// The queries of bench/query-pg.ts still over their ceiling at a million events, each timed through
// every plan PostgreSQL has for it, so a figure over the ceiling can be told from a plan that could be
// better. See bench/README.md.
//
//   node --import tsx bench/query-pg-floors.ts --url postgres://… [--reps 3]
//
// Runs against the database bench/query-pg.ts loaded (1,000,000 events). For a page sorted by an
// index the filter does not serve, the two plans are the sort index walked with the filter tested on
// each row (what PostgreSQL picks, and what the service runs past 40,000 matches), and every match
// fetched through the filter's index and sorted (the service's in-memory sort, without its cap). For an
// exact count of a body substring, the count as the service runs it, the count through the trigram
// index forced, and the trigram index's own scan alone (a floor for any exact count through it: every
// candidate must still be rechecked against its body), beside a bare count of the bodies table.
// Each statement runs in its own read-only transaction without JIT, as runPgQuery runs them; the
// figure is the median of --reps runs after one warm-up.
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { buildStatements } from '../src/storage/pg/query/statements.js';
import { ms, percentile } from './query-service.js';

const { values: args } = parseArgs({ options: { url: { type: 'string' }, reps: { type: 'string', default: '3' } } });
if (!args.url) throw new Error('--url <database loaded by bench/query-pg.ts> is required');
const reps = Number(args.reps);
const log = (line: string): void => void process.stdout.write(`${line}\n`);

/** The page cases over their ceiling in the runs of 2026-11-27 before the sixth session's index-only walks (bench/README.md). */
const PAGES: [name: string, qs: string][] = [
    ['remoteIp /16 sort requestUrl:asc', 'remoteIp=10.1.0.0/16&sort=requestUrl:asc'],
    ['body keyed, 25% sort size:asc', 'body[type]=order.created&sort=size:asc'],
    ['body keyed, 25% sort requestUrl:desc', 'body[type]=order.created&sort=requestUrl:desc'],
    ['query substring sort requestUrl:asc', 'query=%22n%22%3A%227&sort=requestUrl:asc'],
];

type Statement = { text: string; values: unknown[] };

async function timed(client: pg.PoolClient, statement: Statement, settings: string[] = []): Promise<{ median: number; rows: number }> {
    const once = async (): Promise<{ took: number; rows: number }> => {
        await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off; ${settings.map((s) => `SET LOCAL ${s};`).join(' ')}`);
        try {
            const started = performance.now();
            const { rows } = await client.query(statement);
            return { took: performance.now() - started, rows: rows.length };
        } finally {
            await client.query('COMMIT');
        }
    };
    await once();
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < reps; i++) {
        const run = await once();
        times.push(run.took);
        rows = run.rows;
    }
    return { median: percentile(times, 50), rows };
}

/** EXPLAIN ANALYZE of `statement`: the plan as JSON (its nodes' actual rows and times). */
async function analyzed(client: pg.PoolClient, statement: Statement, settings: string[] = []): Promise<PlanNode> {
    await client.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL jit = off; ${settings.map((s) => `SET LOCAL ${s};`).join(' ')}`);
    try {
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, values: statement.values });
        return rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
        await client.query('COMMIT');
    }
}

interface PlanNode {
    'Node Type': string;
    'Index Name'?: string;
    'Actual Rows': number;
    'Actual Loops': number;
    'Actual Total Time': number;
    'Rows Removed by Filter'?: number;
    Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

async function main(): Promise<void> {
    const pool = new pg.Pool({ connectionString: args.url, max: 2 });
    const client = await pool.connect();
    try {
        log('| page (limit 100, cursor mode) | sort index walked: ms (rows tested) | matches fetched and sorted: ms (matches) | best | ceiling |');
        log('|---|---|---|---|---|');
        for (const [name, qs] of PAGES) {
            const s = buildStatements(parseLogsQuery(new URLSearchParams(`cursor=&${qs}&limit=100`)));
            if (!s.sorted) throw new Error(`${name}: the service has no in-memory sort for it`);
            const walk = await timed(client, s.page);
            // Rows the walk tested: what its index scans returned plus what their filters removed.
            const tested = nodes(await analyzed(client, s.page))
                .filter((n) => n['Node Type'].startsWith('Index') && n['Index Name']?.startsWith('events_q_'))
                .reduce((sum, n) => sum + (n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops'], 0);
            const sorted = await timed(client, { text: s.sorted.text, values: s.sorted.values });
            const matches = Number((await client.query<{ n: string }>(
                `SELECT count(*) AS n FROM ${s.count.from}${s.count.conditions.length ? ` WHERE ${s.count.conditions.join(' AND ')}` : ''}`, s.count.values)).rows[0]!.n);
            log(`| ${name} | ${ms(walk.median)} (${tested}) | ${ms(sorted.median)} (${matches}) | ${ms(Math.min(walk.median, sorted.median))} | 100 |`);
        }

        log('\n| body substring, 25% match: exact count | ms | ceiling |');
        log('|---|---|---|');
        const s = buildStatements(parseLogsQuery(new URLSearchParams('body=order.created&limit=100')));
        const count: Statement = { text: `SELECT count(*) AS n FROM ${s.count.from} WHERE ${s.count.conditions.join(' AND ')}`, values: s.count.values };
        log(`| as the service counts (PostgreSQL's plan) | ${ms((await timed(client, count)).median)} | 100 |`);
        const forced = ['enable_seqscan = off', "work_mem = '256MB'"];
        log(`| through the trigram index, forced (no lossy pages) | ${ms((await timed(client, count, forced)).median)} | 100 |`);
        const scans: number[] = [];
        for (let i = 0; i < reps; i++) {
            const scan = nodes(await analyzed(client, count, forced)).find((n) => n['Node Type'] === 'Bitmap Index Scan');
            if (!scan) throw new Error('no bitmap index scan in the forced plan');
            scans.push(scan['Actual Total Time']);
        }
        log(`| the trigram index's own scan alone (${s.count.values.join('')}: every candidate still to recheck) | ${ms(percentile(scans, 50))} | 100 |`);
        log(`| a bare count of the bodies table (no filter) | ${ms((await timed(client, { text: 'SELECT count(*) FROM bodies', values: [] })).median)} | 100 |`);
    } finally {
        client.release();
        await pool.end();
    }
}

await main();
