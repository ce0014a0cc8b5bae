// Answers by rule against a fixed answer: ingest throughput of one build, interleaved A/B.
//
//   node bench/rules.mjs [--main dist/main.js] [--pairs 6] [--duration 6]
//
// A: a webhook whose `response` is a fixed JSON answer. B: the same webhook with 20 rules, the last
// one matching (the 19 before it test a keyed body value, a header, the method, a URL substring, a
// CIDR…), answering a templated JSON body that echoes four request values. Each pair runs A then B
// (the order alternates), each on a fresh storage folder, autocannon with 50 connections posting the
// ~1 KB JSON of bench/lib/payload.mjs. Issue 36 asks B/A ≥ 0.85.
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { MAIN, ensureBuilt, freshDir, measureThreads, median, removeDir, startService, table, threadCpuPerRequest } from './lib/service.mjs';

const { values: args } = parseArgs({
    options: { main: { type: 'string' }, pairs: { type: 'string', default: '6' }, duration: { type: 'string', default: '6' }, sync: { type: 'string', default: 'normal' } },
});
if (!args.main) ensureBuilt();
const main = args.main ?? MAIN;

const FIXED = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"received":"in_1QxYz2AbCdEfGhIj","type":"invoice.paid","amount":4200,"order":"A-10042"}' };
const TEMPLATED = '{"received":"{{request.body.data.object.id}}","type":"{{request.body.type}}","amount":{{json request.body.data.object.amount_paid}},"order":"{{request.body.data.object.metadata.order}}"}';
/** 19 rules that miss the benchmark's request, each kind of condition a few times, then the one that matches. */
const MISSES = [
    ...Array.from({ length: 6 }, (_, i) => ({ 'body[type]': `invoice.voided.${i}` })),
    ...Array.from({ length: 3 }, (_, i) => ({ 'headers[x-tenant]': `t${i}` })),
    ...Array.from({ length: 3 }, (_, i) => ({ method: 'PUT', 'body[data.object.currency]': `eur${i}` })),
    ...Array.from({ length: 3 }, (_, i) => ({ requestUrl: `/orders/${i}` })),
    ...Array.from({ length: 2 }, (_, i) => ({ remoteIp: `10.${i}.0.0/16` })),
    ...Array.from({ length: 2 }, (_, i) => ({ 'size[gte]': 100_000 + i, body: 'refund' })),
];
const RULES = [...MISSES.map((when, i) => ({ name: `miss-${i}`, when, answer: { statusCode: 409 } })), { name: 'paid', when: { 'body[type]': 'invoice.paid' }, answer: { ...FIXED, body: TEMPLATED } }];
const VARIANTS = { a: { response: FIXED }, b: { response: { ...FIXED, rules: RULES } } };

/** One run: a fresh service, a webhook with the variant's answer, 50 connections of JSON posts. */
async function run(which) {
    const dir = freshDir(`rules-${which}`);
    const svc = await startService({ dir, main, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', STORAGE_SYNC: args.sync } });
    try {
        const res = await fetch(`${svc.url}/webhooks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(VARIANTS[which]) });
        if (res.status !== 201) throw new Error(`POST /webhooks → ${res.status}: ${await res.text()}`);
        const hook = `${svc.url}/webhook/${(await res.json()).id}`;
        const check = await fetch(hook, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
        const answer = JSON.parse(await check.text());
        if (answer.received !== 'in_1QxYz2AbCdEfGhIj' || answer.amount !== 4200) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
        const opts = { url: hook, method: 'POST', connections: 50, headers: { 'content-type': 'application/json' }, body: BODY };
        await autocannon({ ...opts, duration: 1 });
        const { result: r, before, after } = await measureThreads(svc.pid, () => autocannon({ ...opts, duration: Number(args.duration) }));
        // CPU per request, which other load on the machine moves less than throughput: the main
        // thread (where rules and templates run) and the whole process.
        const threads = threadCpuPerRequest(before, after, r.requests.total, 0);
        const mainUs = threads.find((t) => Number(t.tid) === svc.pid)?.us ?? NaN;
        const allUs = threads.reduce((sum, t) => sum + t.us, 0);
        return { rps: r.requests.average, p50: r.latency.p50, non2xx: r.non2xx, mainUs, allUs };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

const rows = [];
const ratios = [];
const cpuRatios = [];
for (let pair = 1; pair <= Number(args.pairs); pair++) {
    const result = {};
    for (const which of pair % 2 ? ['a', 'b'] : ['b', 'a']) result[which] = await run(which);
    ratios.push(result.b.rps / result.a.rps);
    cpuRatios.push(result.a.mainUs / result.b.mainUs);
    for (const which of ['a', 'b']) {
        const r = result[which];
        rows.push([pair, which === 'a' ? 'A fixed' : 'B 20 rules + template', r.rps.toFixed(0), r.p50, r.mainUs.toFixed(1), r.allUs.toFixed(1), r.non2xx]);
    }
    process.stderr.write(`pair ${pair}: B/A ${(result.b.rps / result.a.rps).toFixed(3)}, main-thread CPU A/B ${(result.a.mainUs / result.b.mainUs).toFixed(3)}\n`);
}
console.log(`build ${main}\n${args.pairs} interleaved pairs × ${args.duration} s, STORAGE_SYNC=${args.sync}, Node ${process.version}\n`);
console.log(table(['pair', 'variant', 'ingest req/s', 'p50 ms', 'main thread µs/req', 'process µs/req', 'non-2xx'], rows));
console.log(`\nmedian per-pair B/A ingest: ${median(ratios).toFixed(3)} (min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)})`);
console.log(`median per-pair main-thread CPU per request A/B: ${median(cpuRatios).toFixed(3)} (the ingest ratio the main thread allows when it is the bottleneck)`);
