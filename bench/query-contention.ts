// Newest page while full-scan searches run: does a cheap query stay quick when the query workers are
// busy with passes over every body? See bench/README.md ("Query pool under contention").
//
//   node --no-node-snapshot --import tsx bench/query-contention.ts [--events 1000000] [--rounds 3] [--seconds 10]
//
// Uses the million-event store of bench/query.ts (bench/.data/query, built here when missing) through
// store.query(), i.e. the 2-worker query pool the API uses. Each round: the newest page timed alone
// (the ceiling of the same run), then timed every 20 ms while two clients run back-to-back full-scan
// searches (each a body substring found nowhere, so a pass over every body).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseLogsQuery } from '../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import { loadEvents } from './query-load.js';
import { percentile, ROOT } from './query-service.js';

const { values: args } = parseArgs({
    options: {
        events: { type: 'string', default: '1000000' },
        rounds: { type: 'string', default: '3' },
        seconds: { type: 'string', default: '10' },
    },
});
const FILE = join(ROOT, 'bench', '.data', 'query', 'webhook-debugger', 'events.sqlite');
const NEWEST = parseLogsQuery(new URLSearchParams('limit=100'));
const log = (line: string): void => void process.stdout.write(`${line}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number): string => n.toFixed(n >= 100 ? 0 : 1);

const fresh = !existsSync(FILE);
const store = await SqliteEventStore.open({ file: FILE, queryWorkers: 2 });
if (fresh) await loadEvents(store, Number(args.events), log);
log(`${(await store.stats()).eventsStored} events; load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')}`);

async function timeNewest(until: () => boolean, gapMs: number): Promise<number[]> {
    const times: number[] = [];
    while (until()) {
        const started = performance.now();
        const page = await store.query(NEWEST);
        times.push(performance.now() - started);
        if (page.items.length !== 100) throw new Error('newest page is short');
        await sleep(gapMs);
    }
    return times;
}

let term = 0;
async function searcher(until: () => boolean, durations: number[]): Promise<void> {
    while (until()) {
        const started = performance.now();
        // A different absent term each time, so no count or page is reused.
        const page = await store.query(parseLogsQuery(new URLSearchParams(`cursor=&body=no-such-term-${term++}&limit=100`)));
        durations.push(performance.now() - started);
        if (page.items.length !== 0) throw new Error('the absent term matched');
    }
}

// Warm-up: both workers, the page cache and the count cache of the newest page.
for (let i = 0; i < 20; i++) await store.query(NEWEST);
await store.query(parseLogsQuery(new URLSearchParams('cursor=&body=warm-up-term&limit=100')));

const rows: string[] = [];
for (let round = 1; round <= Number(args.rounds); round++) {
    const seconds = Number(args.seconds) * 1000;
    let end = performance.now() + seconds / 2;
    const alone = await timeNewest(() => performance.now() < end, 20);
    end = performance.now() + seconds;
    const scans: number[] = [];
    const running = () => performance.now() < end;
    const searchers = [searcher(running, scans), searcher(running, scans)];
    await sleep(50);
    const busy = await timeNewest(running, 20);
    await Promise.all(searchers);
    const row = `| ${round} | ${fmt(percentile(alone, 50))} | ${fmt(percentile(busy, 50))} | ${fmt(percentile(busy, 95))} | ${fmt(percentile(busy, 99))} | ${fmt(Math.max(...busy))} | ${busy.length} | ${scans.length} (p50 ${fmt(percentile(scans, 50))} ms) |`;
    rows.push(row);
    log(row);
}
await store.close();
log('');
log('| round | newest 100 alone p50 ms | with 2 searches p50 ms | p95 | p99 | max | pages timed | searches done (p50 each) |');
log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) log(row);
