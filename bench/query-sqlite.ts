// GET /logs on SQLite mode at a million events (issue 39 item 1): bench/query-matrix.ts's cases, timed
// over HTTP against the built service, then the freshness cases. See bench/README.md.
//
//   node --no-node-snapshot --import tsx bench/query-sqlite.ts [--reuse] [--events 1000000] [--reps 5]
//        [--only <substring>] [--burst 20000] [--skip-fresh]
//
// 1. Loads the events of bench/query-data.ts into bench/.data/query-sqlite/ through the storage layer
//    (SqliteEventStore.importEvents), unless --reuse finds a store of --events events there.
// 2. Starts the built service (`npm run build` is run when dist/ is stale) on a copy of that store, so
//    that the captures of step 4 never grow the store --reuse keeps.
// 3. Times every case: one warm-up, then the median of --reps; a case ten times over its ceiling is
//    timed once (its verdict is plain).
// 4. Freshness (bench/query-sqlite-fresh.ts): a capture found by a keyed and by a substring filter;
//    the newest page while the dataset export catches up after a burst, and beside two searches.
import { cpSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import { hasDatabase, loadEvents } from './query-load.js';
import { cursorAfter, DEEP_FRACTIONS, matrixCases, SQLITE_CEILINGS, timeMatrixCase, type DeepPages, type MatrixCase } from './query-matrix.js';
import { freshnessCases, type Timed } from './query-sqlite-fresh.js';
import { ensureBuilt, ms, ROOT, spawnService } from './query-service.js';

const { values: args } = parseArgs({
    options: {
        reuse: { type: 'boolean', default: false },
        events: { type: 'string', default: '1000000' },
        reps: { type: 'string', default: '5' },
        only: { type: 'string' },
        burst: { type: 'string', default: '20000' },
        'skip-fresh': { type: 'boolean', default: false },
    },
});
const DIR = join(ROOT, 'bench', '.data', 'query-sqlite');
const FILE = join(DIR, 'webhook-debugger', 'events.sqlite');
const RUN_DIR = join(ROOT, 'bench', '.data', 'query-sqlite-run');
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const bytes = (path: string): number => (hasDatabase(path) ? statSync(path).size : 0);

/** Opens (loading when needed) the bench store, and takes the deep pages' cursors and offsets from it. */
async function prepareStore(wanted: number): Promise<DeepPages> {
    let store = hasDatabase(FILE) && args.reuse ? await SqliteEventStore.open({ file: FILE, queryWorkers: 1 }) : undefined;
    const have = store ? (await store.stats()).eventsStored : 0;
    if (store && have === wanted) log(`Reusing ${FILE} (${have} events)`);
    else {
        await store?.close();
        rmSync(DIR, { recursive: true, force: true });
        store = await SqliteEventStore.open({ file: FILE, queryWorkers: 1 });
        log(`Loading ${wanted} events into ${FILE}`);
        await loadEvents(store, wanted, log);
    }
    try {
        const offsets = DEEP_FRACTIONS.map((f) => Math.floor(f * wanted));
        const cursors: string[] = [];
        for (const at of offsets) {
            const [item] = (await store.query(parseLogsQuery(new URLSearchParams(`offset=${at}&limit=1`)))).items;
            if (!item) throw new Error(`no event at offset ${at}`);
            cursors.push(cursorAfter(item));
        }
        return { cursors, offsets };
    } finally {
        await store.close();
    }
}

/** Answer of one GET /logs: its rows and total (offset mode). */
async function getLogs(url: string, qs: string): Promise<{ rows: number; total?: number }> {
    const res = await fetch(`${url}/logs?${qs}`);
    const body = (await res.json()) as { items?: unknown[]; total?: number; message?: string };
    if (res.status !== 200) throw new Error(`GET /logs?${qs} answered ${res.status}: ${body.message ?? ''}`);
    return { rows: body.items?.length ?? 0, ...(body.total === undefined ? {} : { total: body.total }) };
}

/** Times one case over HTTP (bench/query-matrix.ts's rule). */
async function timeCase(url: string, c: MatrixCase, reps: number): Promise<Timed> {
    const t = await timeMatrixCase(c, reps, (qs) => getLogs(url, qs));
    return { name: c.name, ceiling: c.ceiling, first: t.first, median: t.median, max: t.max, rows: String(t.rows), total: t.total === undefined ? '' : String(t.total) };
}

const row = (t: Timed): string => `| ${t.name} | ${ms(t.first)} | ${ms(t.median)} | ${ms(t.max)} | ${t.ceiling} | ${t.rows} | ${t.total} | ${t.median < t.ceiling ? 'yes' : 'NO'} |`;

const started = Date.now();
const wanted = Number(args.events);
const deep = await prepareStore(wanted);
log(`Store on disk: events.sqlite ${bytes(FILE)} bytes, -wal ${bytes(`${FILE}-wal`)} bytes`);
ensureBuilt();
rmSync(RUN_DIR, { recursive: true, force: true });
cpSync(join(DIR, 'webhook-debugger'), join(RUN_DIR, 'webhook-debugger'), { recursive: true });
const svc = await spawnService(RUN_DIR);
const results: Timed[] = [];
try {
    log(`Service up; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    // The service's own warm-up (connections, statements, both query workers), so the first case does not pay it.
    for (let i = 0; i < 20; i++) await getLogs(svc.url, i % 2 ? 'limit=100' : 'cursor=&limit=100');
    const cases = matrixCases(deep, SQLITE_CEILINGS).filter((c) => !args.only || c.name.includes(args.only));
    log(`\n| case | first ms | median ms | max ms | ceiling ms | rows | total | ok |\n|---|---|---|---|---|---|---|---|`);
    for (const c of cases) {
        const t = await timeCase(svc.url, c, Number(args.reps));
        results.push(t);
        log(row(t));
    }
    if (!args['skip-fresh']) {
        for await (const t of freshnessCases(svc, { burst: Number(args.burst), reps: Number(args.reps) })) {
            results.push(t);
            log(row(t));
        }
    }
} finally {
    await svc.stop();
    rmSync(RUN_DIR, { recursive: true, force: true });
}
const notes = results.flatMap((t) => (t.note ? [`- ${t.note}`] : []));
if (notes.length > 0) log(`\n${notes.join('\n')}`);
const over = results.filter((t) => t.median >= t.ceiling).sort((a, b) => b.median / b.ceiling - a.median / a.ceiling);
log(`\n${results.length} cases, ${over.length} over their ceiling; run time ${Math.round((Date.now() - started) / 1000)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
if (over.length > 0) {
    log(`\nOver their ceiling (worst first, by median / ceiling):\n`);
    for (const t of over) log(`- ${t.name}: median ${ms(t.median)} ms (first ${ms(t.first)}, max ${ms(t.max)}), ceiling ${t.ceiling} ms (${(t.median / t.ceiling).toFixed(1)}×)`);
}
