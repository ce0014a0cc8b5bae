// Where the CPU goes, thread by thread, for plain ingest or for the pipeline configuration
// (schema + Stripe signature + customScript of pipeline-input.mjs).
//
//   node bench/pipeline-threads.mjs [plain|pipeline] [requests=8000] [--main path/to/dist/main.js]
//
// Starts the built service, sends `requests` of the ~1 KB JSON POST with autocannon (50 connections,
// after 1,000 to warm up), reads /proc/<pid>/task/*/stat before and after, and prints CPU µs per
// request for every thread above 1 µs (the capture thread is the one whose id is the pid; isolated-vm
// runs isolates on a pool of its own threads; V8's platform threads do the GC work), then the CPU of
// the whole machine that stayed idle during the run.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { PIPELINE_INPUT, SECRET } from './pipeline-input.mjs';
import { ensureBuilt, firstWebhook, freshDir, removeDir, measureThreads, startService, threadCpuPerRequest } from './lib/service.mjs';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { main: { type: 'string' } } });
const variant = positionals[0] ?? 'pipeline';
const amount = Number(positionals[1] ?? 8000);
if (!['plain', 'pipeline'].includes(variant) || !(amount > 0)) {
    console.error('usage: node bench/pipeline-threads.mjs [plain|pipeline] [requests] [--main dist/main.js]');
    process.exit(2);
}
const t = Math.floor(Date.now() / 1000);
const signature = `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('hex')}`;

if (!args.main) ensureBuilt();
const dir = freshDir(`threads-${variant}`);
const svc = await startService({ dir, input: variant === 'plain' ? { urlCount: 1 } : PIPELINE_INPUT, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' }, ...(args.main ? { main: args.main } : {}) });
try {
    const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
    // Machine-wide idle ticks (idle + iowait) and all ticks, from the first line of /proc/stat.
    const machine = () => {
        const v = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
        return { idle: v[3] + v[4], all: v.reduce((a, b) => a + b, 0) };
    };
    const load = (n) => autocannon({ url, method: 'POST', connections: 50, amount: n, headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: BODY });
    await load(1000);
    const m0 = machine();
    const { result, seconds, ownUs, before, after } = await measureThreads(svc.pid, () => load(amount));
    const m1 = machine();
    console.log(`${variant}: ${amount} requests, ${Math.round(amount / seconds)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
    console.log(`autocannon (this process): ${(ownUs / amount).toFixed(0)} µs/request`);
    let total = 0;
    for (const { tid, us } of threadCpuPerRequest(before, after, amount, 1)) {
        total += us;
        console.log(`  ${us.toFixed(0).padStart(5)} µs/request  thread ${tid}${Number(tid) === svc.pid ? ' (capture thread)' : ''}`);
    }
    console.log(`  service total ${total.toFixed(0)} µs/request`);
    console.log(`machine CPU idle during the run: ${((100 * (m1.idle - m0.idle)) / (m1.all - m0.all)).toFixed(0)}%`);
} finally {
    await svc.stop();
    removeDir(dir);
}
