import autocannon from 'autocannon';
import { percentile, rssMb, type RunningService } from './query-service.js';

/** About 1 KB of JSON, like the ingest bench sends. */
const BODY = JSON.stringify({ type: 'invoice.paid', data: { object: { id: 'in_1QxYz2AbCdEfGhIj', amount_paid: 4200, currency: 'usd' } }, pad: 'x'.repeat(900) });

/** Ingest latency and rate from one autocannon run, with what the search loop did meanwhile. */
export interface IngestRun {
    label: string;
    rps: number;
    p50: number;
    p99: number;
    non2xx: number;
    errors: number;
    searches: number;
    searchP50: number;
    maxRssMb: number;
}

/**
 * Runs autocannon (`connections` POSTing ~1 KB JSON to the webhook) for `seconds`, optionally while
 * one client runs `searchPath` back to back, and samples the service's RSS every 250 ms.
 */
export async function ingestRun(svc: RunningService, webhookId: string, opts: { label: string; seconds: number; connections: number; searchPath?: string }): Promise<IngestRun> {
    let stop = false;
    const searchTimes: number[] = [];
    const searching = (async () => {
        while (opts.searchPath && !stop) {
            const started = performance.now();
            const res = await fetch(`${svc.url}${opts.searchPath}`);
            await res.arrayBuffer();
            if (res.status !== 200) throw new Error(`search answered ${res.status}`);
            searchTimes.push(performance.now() - started);
        }
    })();
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(svc.child.pid!))), 250);
    try {
        const r = await autocannon({ url: `${svc.url}/webhook/${webhookId}`, method: 'POST', connections: opts.connections, duration: opts.seconds, headers: { 'content-type': 'application/json' }, body: BODY });
        return {
            label: opts.label, rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts,
            searches: searchTimes.length, searchP50: percentile(searchTimes, 50), maxRssMb: Math.max(maxRss, rssMb(svc.child.pid!)),
        };
    } finally {
        stop = true;
        clearInterval(sampler);
        await searching;
    }
}

/** Times `path` over HTTP, sequentially, `reps` times. */
export async function timeHttp(url: string, reps: number): Promise<{ p50: number; p95: number }> {
    const times: number[] = [];
    for (let i = 0; i < reps + 10; i++) {
        const started = performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
        if (i >= 10) times.push(performance.now() - started);
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
}
