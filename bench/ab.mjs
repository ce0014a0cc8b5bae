// Interleaved A/B of two builds: ingest throughput and the management API's overhead.
//
//   node bench/ab.mjs --a <path/to/dist/main.js> --b <path/to/dist/main.js> [--pairs 6] [--duration 6]
//
// Each pair runs build A then build B (the order alternates every pair), each on a fresh storage folder
// with the same settings (STORAGE_SYNC given explicitly so both builds commit alike):
//   ingest   autocannon, 50 connections, the ~1 KB JSON POST of bench/lib/payload.mjs
//   detail   autocannon, 10 connections, GET /logs/:id of one stored event
// It prints each run and the median of the per-pair B/A ratios. A machine under other load moves both
// builds of a pair alike, which is why only per-pair ratios are quoted.
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { firstWebhook, freshDir, median, removeDir, startService, table } from './lib/service.mjs';

const { values: args } = parseArgs({
    options: {
        a: { type: 'string' },
        b: { type: 'string' },
        pairs: { type: 'string', default: '6' },
        duration: { type: 'string', default: '6' },
        sync: { type: 'string', default: 'normal' },
    },
});
if (!args.a || !args.b) throw new Error('usage: node bench/ab.mjs --a <main.js> --b <main.js>');
const DURATION = Number(args.duration);

const cannon = (opts) => autocannon({ duration: DURATION, ...opts });

/** One run of a build: ingest req/s, then GET /logs/:id req/s and p50 on the same service. */
async function run(main) {
    const dir = freshDir('ab');
    const svc = await startService({ dir, main, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', STORAGE_SYNC: args.sync } });
    try {
        const hook = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        await autocannon({ url: hook, method: 'POST', connections: 50, duration: 1, headers: { 'content-type': 'application/json' }, body: BODY });
        const ingest = await cannon({ url: hook, method: 'POST', connections: 50, headers: { 'content-type': 'application/json' }, body: BODY });
        const { items } = await svc.json('/logs?limit=1');
        const detailUrl = `${svc.url}/logs/${items[0].id}`;
        const detail = await cannon({ url: detailUrl, connections: 10 });
        return { ingest: ingest.requests.average, detailRps: detail.requests.average, detailP50: detail.latency.p50, non2xx: ingest.non2xx + detail.non2xx };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

const rows = [];
const ingestRatios = [];
const detailRatios = [];
const p50 = { a: [], b: [] };
for (let pair = 1; pair <= Number(args.pairs); pair++) {
    const order = pair % 2 ? ['a', 'b'] : ['b', 'a'];
    const result = {};
    for (const which of order) result[which] = await run(args[which]);
    ingestRatios.push(result.b.ingest / result.a.ingest);
    detailRatios.push(result.b.detailRps / result.a.detailRps);
    p50.a.push(result.a.detailP50);
    p50.b.push(result.b.detailP50);
    for (const which of ['a', 'b']) {
        const r = result[which];
        rows.push([pair, which.toUpperCase(), r.ingest.toFixed(0), r.detailRps.toFixed(0), r.detailP50, r.non2xx]);
    }
    process.stderr.write(`pair ${pair}: ingest B/A ${(result.b.ingest / result.a.ingest).toFixed(3)}, detail B/A ${(result.b.detailRps / result.a.detailRps).toFixed(3)}\n`);
}
console.log(`A = ${args.a}\nB = ${args.b}\n${args.pairs} interleaved pairs × ${DURATION} s, STORAGE_SYNC=${args.sync}, Node ${process.version}\n`);
console.log(table(['pair', 'build', 'ingest req/s', 'GET /logs/:id req/s', 'GET /logs/:id p50 ms', 'non-2xx'], rows));
console.log(`\nmedian per-pair B/A: ingest ${median(ingestRatios).toFixed(3)}, GET /logs/:id req/s ${median(detailRatios).toFixed(3)}`);
console.log(`median GET /logs/:id p50: A ${median(p50.a)} ms, B ${median(p50.b)} ms`);
