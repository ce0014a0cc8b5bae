// Body search over large bodies (issue 22, item 4): how long a body substring search and the newest page
// take when a few hundred bodies of ~1 MB sit among many small ones, and how fast a search whose
// client went away frees the query workers.
//
//   node --no-node-snapshot --import tsx bench/query-big-bodies.ts [--reuse] [--small 100000] [--big 300]
//        [--big-kb 1024] [--seconds 8] [--reps 9] [--file path/to/events.sqlite]
//
// The store lives in bench/.data/query-big (rebuilt unless --reuse finds it; --file names another, to
// time two checkouts on the same store), opened through
// SqliteEventStore with the 2-worker query pool the API uses; every query goes through store.query().
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import type { NewEvent } from '../src/storage/types.js';
import { benchEvent, prng } from './query-data.js';
import { percentile, ROOT } from './query-service.js';

const { values: args } = parseArgs({
    options: {
        reuse: { type: 'boolean', default: false },
        small: { type: 'string', default: '100000' },
        big: { type: 'string', default: '300' },
        'big-kb': { type: 'string', default: '1024' },
        seconds: { type: 'string', default: '8' },
        reps: { type: 'string', default: '9' },
        file: { type: 'string' },
    },
});
const FILE = args.file ?? join(ROOT, 'bench', '.data', 'query-big', 'events.sqlite');
const DIR = dirname(FILE);
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n.toFixed(1));

/** A JSON body of about `kb` KB: words, so LIKE has real text to walk. */
function bigEvent(base: NewEvent, kb: number): NewEvent {
    const unit = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november ';
    const text = JSON.stringify({ type: 'bulk.export', notes: unit.repeat(Math.ceil((kb * 1024) / unit.length)) });
    const raw = Buffer.from(text);
    return { ...base, size: raw.length, bodyRaw: raw, headers: { ...base.headers, 'content-length': String(raw.length) } };
}

async function build(): Promise<SqliteEventStore> {
    rmSync(DIR, { recursive: true, force: true });
    const store = await SqliteEventStore.open({ file: FILE, queryWorkers: 2 });
    const small = Number(args.small);
    const big = Number(args.big);
    const total = small + big;
    // Big bodies spread evenly, so the newest events hold some of them too.
    const every = Math.max(1, Math.floor(total / Math.max(1, big)));
    const rand = prng(7);
    let batch: NewEvent[] = [];
    let batchBytes = 0;
    for (let i = 0; i < total; i++) {
        const e = benchEvent(rand, i, total);
        const event = i % every === every - 1 ? bigEvent(e, Number(args['big-kb'])) : e;
        batch.push(event);
        batchBytes += event.size;
        if (batch.length === 5000 || batchBytes > 64 * 1024 * 1024 || i === total - 1) {
            await store.importEvents(batch);
            batch = [];
            batchBytes = 0;
        }
    }
    log(`built ${FILE}: ${small} small events, ${big} of ~${args['big-kb']} KB`);
    return store;
}

const store = args.reuse && existsSync(FILE) ? await SqliteEventStore.open({ file: FILE, queryWorkers: 2 }) : await build();
const stats = (): NonNullable<ReturnType<SqliteEventStore['queryStats']>> => store.queryStats()!;
log(`${(await store.stats()).eventsStored} events; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);

let term = 0;
const search = (extra = ''): Promise<{ items: unknown[] }> => store.query(parseLogsQuery(new URLSearchParams(`body=no-such-term-${term++}&limit=100${extra}`)));

/** p50/max of `reps` runs of `run`, one after another. */
async function timed(reps: number, run: () => Promise<unknown>): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < reps; i++) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
    }
    return times;
}

/** Starts a query, leaves after `afterMs`, and times how long the workers take to drop it. */
async function cancelLatency(extra: string, afterMs: number): Promise<number> {
    const controller = new AbortController();
    const q = parseLogsQuery(new URLSearchParams(`body=no-such-term-${term++}&limit=100${extra}`));
    const running = store.query(q, controller.signal).catch(() => undefined);
    await sleep(afterMs);
    controller.abort();
    const left = performance.now();
    while (stats().pending > 0) await new Promise((r) => setImmediate(r));
    await running;
    return performance.now() - left;
}

// Warm-up: both workers and the page cache.
for (let i = 0; i < 4; i++) await store.query(parseLogsQuery(new URLSearchParams('limit=100')));
await search();

const reps = Number(args.reps);
const rows: [string, string][] = [];
const report = (name: string, times: number[]): void => {
    const row = `p50 ${fmt(percentile(times, 50))} ms, p95 ${fmt(percentile(times, 95))} ms, max ${fmt(Math.max(...times))} ms (${times.length} runs)`;
    rows.push([name, row]);
    log(`  ${name}: ${row}`);
};

report('body search, absent term, newest page (offset, total)', await timed(reps, () => search()));
report('body search, absent term, newest page (cursor)', await timed(reps, () => search('&cursor=')));
report('body search, offset 20,000 + limit 100', await timed(Math.min(reps, 5), () => search('&offset=20000')));

// The newest page (no filter) every 20 ms while two clients run back-to-back body searches.
const end = performance.now() + Number(args.seconds) * 1000;
const running = (): boolean => performance.now() < end;
const searches: number[] = [];
const searcher = async (): Promise<void> => {
    while (running()) searches.push(...(await timed(1, () => search())));
};
const searchers = [searcher(), searcher()];
await sleep(50);
const newest: number[] = [];
while (running()) {
    newest.push(...(await timed(1, () => store.query(parseLogsQuery(new URLSearchParams('limit=100'))))));
    await sleep(20);
}
await Promise.all(searchers);
report('newest 100 (no filter) while 2 body searches run', newest);
report('  … the body searches meanwhile', searches);

const cancels: number[] = [];
for (let i = 0; i < 5; i++) cancels.push(await cancelLatency('', 100));
report('workers free after the client leaves a body search (100 ms in)', cancels);
const deep: number[] = [];
for (let i = 0; i < 5; i++) deep.push(await cancelLatency('&offset=20000', 100));
report('workers free after the client leaves an offset 20,000 search (100 ms in)', deep);

await store.close();
log('');
log('| case | result |');
log('| --- | --- |');
for (const [name, row] of rows) log(`| ${name} | ${row} |`);
