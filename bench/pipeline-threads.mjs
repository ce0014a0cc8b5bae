// Where the CPU goes, thread by thread, for plain ingest, for the pipeline configuration (schema +
// Stripe signature + customScript of pipeline-input.mjs), or for forwarding to a local receiver.
//
//   node bench/pipeline-threads.mjs [plain|pipeline|forward] [requests=8000] [--rate N] [--during-load] [--main path/to/dist/main.js]
//
// Starts the built service, sends `requests` of the ~1 KB JSON POST with autocannon (50 connections,
// after 1,000 to warm up; `--rate` paces them at N requests/s in all), reads /proc/<pid>/task/*/stat before and after, and prints CPU µs per
// request for every thread above 1 µs (the capture thread is the one whose id is the pid; isolated-vm
// runs isolates on a pool of its own threads; V8's platform threads do the GC work), then the CPU of
// the whole machine that stayed idle during the run. `forward` also starts bench/forward-receiver.mjs,
// keeps measuring until the forwarding backlog has drained (every forward arrived), and adds the
// receiver's CPU: the sum over service, receiver and autocannon is the machine's cost of one request.
// `--during-load` measures the threads over the load alone (forwards still waited for, not counted).
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { PIPELINE_INPUT, SECRET } from './pipeline-input.mjs';
import { ensureBuilt, firstWebhook, freshDir, removeDir, measureThreads, processCpuUs, startService, threadCpuPerRequest } from './lib/service.mjs';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: { main: { type: 'string' }, rate: { type: 'string' }, 'during-load': { type: 'boolean', default: false } } });
const variant = positionals[0] ?? 'pipeline';
const amount = Number(positionals[1] ?? 8000);
if (!['plain', 'pipeline', 'forward'].includes(variant) || !(amount > 0)) {
    console.error('usage: node bench/pipeline-threads.mjs [plain|pipeline|forward] [requests] [--main dist/main.js]');
    process.exit(2);
}
const t = Math.floor(Date.now() / 1000);
const signature = `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('hex')}`;

if (!args.main) ensureBuilt();
const receiver = variant === 'forward' ? await startReceiver() : undefined;
const inputs = { plain: { urlCount: 1 }, pipeline: PIPELINE_INPUT, forward: { urlCount: 1, forwardUrl: `${receiver?.url}/in` } };
const dir = freshDir(`threads-${variant}`);
const svc = await startService({ dir, input: inputs[variant], env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', SSRF_ALLOWLIST: '127.0.0.1' }, ...(args.main ? { main: args.main } : {}) });
try {
    const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
    // Machine-wide idle ticks (idle + iowait) and all ticks, from the first line of /proc/stat.
    const machine = () => {
        const v = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
        return { idle: v[3] + v[4], all: v.reduce((a, b) => a + b, 0) };
    };
    const load = (n) => autocannon({ url, method: 'POST', connections: 50, amount: n, ...(args.rate ? { overallRate: Number(args.rate) } : {}), headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: BODY });
    await load(1000);
    const forwardedBefore = receiver ? await receiver.settled(0) : 0;
    const countersBefore = receiver ? (await svc.json('/system/metrics')).forwarding : undefined;
    const receiverBefore = receiver ? processCpuUs(receiver.pid) : 0;
    const m0 = machine();
    let m1 = m0;
    let loadSeconds = 0;
    let receiverAfter = 0;
    const duringLoad = args['during-load'];
    const { result, seconds, ownUs, before, after } = await measureThreads(svc.pid, async () => {
        const started = performance.now();
        const r = await load(amount);
        loadSeconds = (performance.now() - started) / 1000;
        m1 = machine();
        const forwarded = receiver && !duringLoad ? await receiver.settled(forwardedBefore) : 0;
        if (receiver) receiverAfter = processCpuUs(receiver.pid);
        return { ...r, forwarded };
    });
    if (receiver && duringLoad) result.forwarded = await receiver.settled(forwardedBefore);
    console.log(`${variant}: ${amount} requests, ${Math.round(amount / loadSeconds)} req/s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
    if (receiver) {
        const counters = (await svc.json('/system/metrics')).forwarding;
        const delta = Object.fromEntries(Object.entries(counters).map(([k, v]) => [k, v - countersBefore[k]]));
        console.log(`forwarded ${result.forwarded} during the load and the drain${duringLoad ? '' : ` (${seconds.toFixed(1)} s in all)`}; of these requests ${JSON.stringify(delta)}`);
    }
    console.log(`autocannon (this process): ${(ownUs / amount).toFixed(0)} µs/request`);
    let total = 0;
    for (const { tid, name, us } of threadCpuPerRequest(before, after, amount, 1)) {
        total += us;
        console.log(`  ${us.toFixed(0).padStart(5)} µs/request  thread ${tid} ${name}${Number(tid) === svc.pid ? ' (capture thread)' : ''}`);
    }
    console.log(`  service total ${total.toFixed(0)} µs/request`);
    if (receiver) console.log(`receiver total ${((receiverAfter - receiverBefore) / amount).toFixed(0)} µs/request`);
    console.log(`machine CPU idle while the load ran: ${((100 * (m1.idle - m0.idle)) / (m1.all - m0.all)).toFixed(0)}%`);
} finally {
    await svc.stop();
    removeDir(dir);
    receiver?.child.kill('SIGTERM');
}
