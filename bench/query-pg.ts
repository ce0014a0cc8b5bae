// GET /logs queries on PostgreSQL at a million events (issue 23 item 6). See bench/README.md.
//
//   node --import tsx bench/query-pg.ts [--events 1000000] [--reps 7] [--url postgres://…] [--fast]
//
// Starts a throwaway PostgreSQL (test/helpers/pg-server.ts, fsync on unless --fast; or uses --url,
// loading it only when it holds fewer events), loads the SQLite bench's events (bench/query-data.ts)
// with the real schema and query indexes, VACUUM ANALYZE, then times runPgQuery as EventLog.query
// runs it: the median of --reps runs after one warm-up, each figure beside its ceiling. The cases are
// bench/query-matrix.ts's, held to this backend's ceilings (PG_CEILINGS).
import { parseArgs } from 'node:util';
import pg from 'pg';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { runPgQuery } from '../src/storage/pg/query/run.js';
import { migrate } from '../src/storage/pg/schema.js';
import { startPgServer, type PgServer } from '../test/helpers/pg-server.js';
import { loadPgEvents } from './query-pg-load.js';
import { cursorAfter, DEEP_FRACTIONS, matrixCases, PG_CEILINGS, timeMatrixCase, type CaseTiming, type MatrixCase } from './query-matrix.js';
import { ms } from './query-service.js';

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

/** Cursors at the 40%, 50% and 60% newest event (400,000 to 600,000 deep at a million), made from real rows. */
async function deepCursors(pool: pg.Pool, events: number): Promise<string[]> {
    const cursors: string[] = [];
    for (const at of DEEP_FRACTIONS.map((f) => Math.floor(f * events))) {
        const [item] = (await runPgQuery(pool, parseLogsQuery(new URLSearchParams(`offset=${at}&limit=1`)), undefined, 120_000)).items;
        if (!item) throw new Error(`no event at offset ${at}`);
        cursors.push(cursorAfter(item));
    }
    return cursors;
}

/** Times one case as EventLog.query runs it on PostgreSQL (bench/query-matrix.ts's rule); each query string is parsed once. */
function time(pool: pg.Pool, c: MatrixCase, reps: number): Promise<CaseTiming> {
    const queries = new Map(c.qs.map((qs) => [qs, parseLogsQuery(new URLSearchParams(qs))]));
    return timeMatrixCase(c, reps, async (qs) => {
        const page = await runPgQuery(pool, queries.get(qs)!, undefined, 120_000);
        return { rows: page.items.length, ...(page.total === undefined ? {} : { total: page.total }) };
    });
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
        const all = matrixCases({ cursors: await deepCursors(pool, Math.max(have, wanted)) }, PG_CEILINGS).filter((c) => !args.only || c.name.includes(args.only));
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
