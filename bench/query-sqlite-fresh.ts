import autocannon from 'autocannon';
import { percentile, type RunningService } from './query-service.js';

// The freshness cases of bench/query-sqlite.ts (issue 39 item 2): how soon a capture is found by a
// filtered poll, and whether the newest page stays quick while the dataset export catches up after a
// burst and while two full-scan searches run.

/** A timed case as the bench's table prints it; `note` says how it was measured. */
export interface Timed {
    name: string;
    ceiling: number;
    first: number;
    median: number;
    max: number;
    rows: string;
    total: string;
    note?: string;
}

const FOUND_CEILING = 50;
const NEWEST_CEILING = 10;
const NEWEST = ['cursor=&limit=100', 'limit=100'];
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const summary = (name: string, ceiling: number, times: number[], note: string): Timed =>
    ({ name, ceiling, first: times[0] ?? Number.NaN, median: percentile(times, 50), max: Math.max(...times), rows: '', total: '', note: `${name}: ${note}` });

async function json<T>(url: string, init?: RequestInit): Promise<T> {
    const res = await fetch(url, init);
    const body = (await res.json()) as T & { message?: string };
    if (res.status !== 200) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${res.status}: ${body.message ?? ''}`);
    return body;
}

let markers = 0;
/** Posts one capture with a unique marker, then polls `/logs` back to back with `filter(marker)`: ms from the 200 to the answer that lists it. */
async function foundAfter(svc: RunningService, hook: string, filter: (marker: string) => string): Promise<{ ms: number; polls: number }> {
    const marker = `fresh${process.pid}x${Date.now().toString(36)}x${markers++}`;
    const res = await fetch(`${svc.url}/webhook/${hook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'fresh.capture', marker }) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the capture answered ${res.status}`);
    const answered = performance.now();
    for (let polls = 1; ; polls++) {
        const page = await json<{ items: unknown[] }>(`${svc.url}/logs?cursor=&${filter(marker)}&limit=100`);
        const ms = performance.now() - answered;
        if (page.items.length > 0) return { ms, polls };
        if (ms > 60_000) throw new Error(`capture ${marker} not found by ${filter(marker)} after 60 s`);
    }
}

/** Times the newest pages (cursor and offset mode in turn, every 20 ms) while `busy()` holds, and at least `minMs`. */
async function timeNewest(svc: RunningService, busy: () => boolean, minMs: number): Promise<number[][]> {
    const times: number[][] = NEWEST.map(() => []);
    const until = performance.now() + minMs;
    for (let i = 0; busy() || performance.now() < until; i++) {
        const started = performance.now();
        const page = await json<{ items: unknown[] }>(`${svc.url}/logs?${NEWEST[i % NEWEST.length]}`);
        times[i % NEWEST.length]!.push(performance.now() - started);
        if (page.items.length !== 100) throw new Error('the newest page is short');
        await sleep(20);
    }
    return times;
}

/** The export's backlog (captures committed and not yet in the local dataset). */
const backlog = async (svc: RunningService): Promise<number> => (await json<{ sync: { outboxBacklog: number } }>(`${svc.url}/system/metrics`)).sync.outboxBacklog;

/** The freshness cases, in turn, on the running service (it gains the captures they send). */
export async function* freshnessCases(svc: RunningService, opts: { burst: number; reps: number }): AsyncGenerator<Timed> {
    const info = await json<{ system: { activeWebhooks: { id: string }[] } }>(`${svc.url}/info`);
    const hook = info.system.activeWebhooks[0]!.id;
    for (const [what, filter] of [['keyed', (m: string) => `body[marker]=${m}`], ['substring', (m: string) => `body=${m}`]] as const) {
        const found = [];
        for (let i = 0; i < Math.max(3, opts.reps); i++) found.push(await foundAfter(svc, hook, filter));
        yield summary(`a capture found by a ${what} filter (ms after its 200)`, FOUND_CEILING, found.map((f) => f.ms), `${found.length} captures, polled back to back (cursor=&${filter('…')}&limit=100); polls each: ${found.map((f) => f.polls).join(', ')}`);
    }

    const burst = await autocannon({ url: `${svc.url}/webhook/${hook}`, method: 'POST', connections: 50, amount: opts.burst, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'burst', pad: 'x'.repeat(900) }) });
    const left = await backlog(svc);
    let caughtUp = left === 0;
    const burstEnd = performance.now();
    let caughtAt = burstEnd;
    const watching = (async () => {
        while (!caughtUp) {
            await sleep(100);
            caughtUp = (await backlog(svc)) === 0 || performance.now() - burstEnd > 300_000;
            caughtAt = performance.now();
        }
    })();
    const during = await timeNewest(svc, () => !caughtUp, 1000);
    await watching;
    const how = `${burst['2xx']} captures (${burst.non2xx} non-2xx) at ${Math.round(burst.requests.average)}/s from 50 connections; export backlog ${left} at its end, caught up ${((caughtAt - burstEnd) / 1000).toFixed(1)} s later`;
    for (const [i, qs] of NEWEST.entries()) yield summary(`newest 100 (${qs.startsWith('cursor') ? 'cursor' : 'offset, total'}) while the export catches up after a burst`, NEWEST_CEILING, during[i]!, `${during[i]!.length} pages; ${how}`);

    let searching = true;
    let term = 0;
    const scans: number[] = [];
    const searcher = async (): Promise<void> => {
        while (searching) {
            const started = performance.now();
            // A different absent term each time, so that no count or page is reused: each is a pass over every body.
            await json(`${svc.url}/logs?cursor=&body=no-such-term-${term++}&limit=100`);
            scans.push(performance.now() - started);
        }
    };
    const searchers = [searcher(), searcher()];
    await sleep(50);
    const beside = await timeNewest(svc, () => false, 10_000);
    searching = false;
    await Promise.all(searchers);
    const scanNote = `${scans.length} searches done beside them (median ${percentile(scans, 50).toFixed(0)} ms each)`;
    for (const [i, qs] of NEWEST.entries()) yield summary(`newest 100 (${qs.startsWith('cursor') ? 'cursor' : 'offset, total'}) while two substring searches run`, NEWEST_CEILING, beside[i]!, `${beside[i]!.length} pages over 10 s; ${scanNote}`);
}
