// GET /logs query benchmark over a million stored events. See bench/README.md ("Query benchmark").
//
//   node --no-node-snapshot --import tsx bench/query.ts [--reuse] [--events 1000000] [--budget 3000]
//        [--rounds 3] [--seconds 15] [--connections 50] [--skip-queries] [--skip-ingest]
//
// 1. Loads the events into bench/.data/query/webhook-debugger/events.sqlite through the storage layer
//    (SqliteEventStore.importEvents, in batches), unless --reuse finds the file.
// 2. Times each query kind through store.query(), i.e. through the query worker pool as the API does.
// 3. Starts the built service on a copy of that store, times GET /logs over HTTP, and measures ingest
//    latency at 50 connections with and without a client running back-to-back body substring searches.
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import { deepCursors, queryCases, timeCase, type QueryTiming } from './query-cases.js';
import { ingestRun, timeHttp, type IngestRun } from './query-ingest.js';
import { hasDatabase, loadEvents } from './query-load.js';
import { ensureBuilt, ms, ROOT, spawnService } from './query-service.js';

const { values: args } = parseArgs({
    options: {
        reuse: { type: 'boolean', default: false },
        events: { type: 'string', default: '1000000' },
        budget: { type: 'string', default: '3000' },
        rounds: { type: 'string', default: '3' },
        seconds: { type: 'string', default: '15' },
        connections: { type: 'string', default: '50' },
        'skip-ingest': { type: 'boolean', default: false },
        'skip-queries': { type: 'boolean', default: false },
    },
});
const DATA = join(ROOT, 'bench', '.data');
const DIR = join(DATA, 'query');
const FILE = join(DIR, 'webhook-debugger', 'events.sqlite');
const SEARCH = '/logs?body=no-such-term&limit=100';
const log = (line: string): void => void process.stdout.write(`${line}\n`);

async function openStore(): Promise<SqliteEventStore> {
    const wanted = Number(args.events);
    if (!args.reuse || !hasDatabase(FILE)) {
        rmSync(DIR, { recursive: true, force: true });
        const store = await SqliteEventStore.open({ file: FILE, queryWorkers: 2 });
        log(`Loading ${wanted} events into ${FILE}`);
        await loadEvents(store, wanted, log);
        return store;
    }
    const store = await SqliteEventStore.open({ file: FILE, queryWorkers: 2 });
    log(`Reusing ${FILE} (${(await store.stats()).eventsStored} events)`);
    return store;
}

async function timeQueries(): Promise<{ timings: QueryTiming[]; rssMb: number; events: number }> {
    const store = await openStore();
    try {
        const events = (await store.stats()).eventsStored;
        const timings: QueryTiming[] = [];
        for (const c of queryCases(await deepCursors(store))) {
            const t = await timeCase(c, (q) => store.query(q), Number(args.budget));
            timings.push(t);
            log(`  ${t.name}: p50 ${ms(t.p50)} ms, p95 ${ms(t.p95)} ms, first ${ms(t.first)} ms (${t.reps} runs; ${t.rows} rows${t.total === undefined ? '' : `, total ${t.total}`})`);
        }
        return { timings, rssMb: Math.round(process.memoryUsage().rss / 1048576), events };
    } finally {
        await store.close();
    }
}

async function ingestUnderSearch(): Promise<{ http: Record<string, { p50: number; p95: number }>; runs: IngestRun[] }> {
    ensureBuilt();
    const copy = join(DATA, 'query-load');
    rmSync(copy, { recursive: true, force: true });
    // A copy, so the captured load does not grow the million-event store that --reuse keeps.
    cpSync(join(DIR, 'webhook-debugger'), join(copy, 'webhook-debugger'), { recursive: true });
    const svc = await spawnService(copy);
    try {
        const http = {
            'GET /logs?limit=100': await timeHttp(`${svc.url}/logs?limit=100`, 300),
            'GET /logs?cursor=&limit=100': await timeHttp(`${svc.url}/logs?cursor=&limit=100`, 300),
        };
        log(`  HTTP: ${JSON.stringify(http)}`);
        const info = (await (await fetch(`${svc.url}/info`)).json()) as { system: { activeWebhooks: { id: string }[] } };
        const webhookId = info.system.activeWebhooks[0]!.id;
        const base = { seconds: Number(args.seconds), connections: Number(args.connections) };
        await ingestRun(svc, webhookId, { ...base, seconds: 3, label: 'warm-up' });
        const runs: IngestRun[] = [];
        for (let round = 1; round <= Number(args.rounds); round++) {
            for (const searchPath of [undefined, SEARCH]) {
                const run = await ingestRun(svc, webhookId, { ...base, label: searchPath ? `round ${round}, with searches` : `round ${round}, ingest only`, ...(searchPath ? { searchPath } : {}) });
                runs.push(run);
                log(`  ${run.label}: ${run.rps} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, non-2xx ${run.non2xx}, errors ${run.errors}, searches ${run.searches} (p50 ${ms(run.searchP50)} ms), max RSS ${run.maxRssMb} MB`);
            }
        }
        return { http, runs };
    } finally {
        await svc.stop();
        rmSync(copy, { recursive: true, force: true });
    }
}

const started = Date.now();
log('Queries through the store (worker pool):');
const queries = args['skip-queries'] ? undefined : await timeQueries();
if (queries) log(`  RSS of the bench process (store, 2 query workers, writer): ${queries.rssMb} MB at ${queries.events} events`);
const ingest = args['skip-ingest'] || !existsSync(FILE) ? undefined : (log('Service on a copy of the store:'), await ingestUnderSearch());
writeFileSync(join(DATA, 'query-results.json'), JSON.stringify({ at: new Date().toISOString(), args, queries, ingest }, null, 2));
log(`Done in ${Math.round((Date.now() - started) / 1000)} s; results in bench/.data/query-results.json`);
