// Ingest throughput with forwardUrl set to a local receiver, against plain ingest, in alternating rounds.
//
//   node bench/forward-throughput.mjs [--rounds 3] [--duration 10] [--connections 50] [--main path/to/dist/main.js]
//
// Each round runs autocannon (the ~1 KB JSON POST of bench/ingest.mjs) against the built service on a
// fresh storage folder without forwardUrl, then against another with forwardUrl pointing at
// bench/forward-receiver.mjs (SSRF_ALLOWLIST=127.0.0.1). After the forwarding run it waits for the
// backlog to drain and reports how many captures reached the receiver (the ratio is only honest if
// they all did), how many arrived while the load ran, and how long the rest took after it.
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { startReceiver } from './lib/receiver.mjs';
import { ensureBuilt, firstWebhook, freshDir, median, removeDir, startService, table } from './lib/service.mjs';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, main: { type: 'string' } } });
const ROUNDS = Number(args.rounds);
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const TARGET_RATIO = 0.7;

const cannon = (url) => autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: DURATION, headers: { 'content-type': 'application/json' }, body: BODY });

async function run(forwardUrl, receiver) {
    const dir = freshDir(forwardUrl ? 'fwd' : 'plain');
    const svc = await startService({ dir, ...(args.main ? { main: args.main } : {}), input: forwardUrl ? { forwardUrl } : {}, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', SSRF_ALLOWLIST: '127.0.0.1' } });
    try {
        const id = await firstWebhook(svc);
        const before = receiver ? await receiver.count() : 0;
        const result = await cannon(`${svc.url}/webhook/${id}`);
        // Forwards that reached the receiver while the load ran; the rest follow from the backlog.
        const duringLoad = receiver ? (await receiver.count()) - before : 0;
        return { rps: result.requests.average, ok: result['2xx'], p99: result.latency.p99, svc, before, duringLoad, endedAt: performance.now() };
    } catch (e) {
        await svc.stop();
        removeDir(dir);
        throw e;
    }
}

ensureBuilt();
const rows = [];
const ratios = [];
for (let round = 1; round <= ROUNDS; round++) {
    const plain = await run(undefined);
    await plain.svc.stop();
    removeDir(plain.svc.dir);
    const receiver = await startReceiver();
    const fwd = await run(`${receiver.url}/in`, receiver);
    // Forwards finish in the background: wait until the receiver stops counting up (checked every
    // second, so the drain time is at most a second too long).
    const delivered = await receiver.settled(fwd.before);
    const drainS = Math.max(0, (performance.now() - fwd.endedAt) / 1000 - 1);
    await fwd.svc.stop();
    removeDir(fwd.svc.dir);
    receiver.child.kill('SIGTERM');
    const ratio = fwd.rps / plain.rps;
    ratios.push(ratio);
    rows.push([round, Math.round(plain.rps), Math.round(fwd.rps), `${(ratio * 100).toFixed(1)}%`, `${fwd.p99} ms`, `${delivered} / ${fwd.ok}`, fwd.duringLoad, `${drainS.toFixed(1)} s`]);
    console.log(`round ${round}: plain ${Math.round(plain.rps)} req/s, forwarding ${Math.round(fwd.rps)} req/s (${(ratio * 100).toFixed(1)}%), forwarded ${delivered} of ${fwd.ok} (${fwd.duringLoad} during the load, the rest in ${drainS.toFixed(1)} s after it)`);
}
console.log(`\n${table(['round', 'plain req/s', 'with forwardUrl req/s', 'ratio', 'p99 (fwd)', 'forwarded / 2xx', 'forwarded during load', 'drained after load'], rows)}`);
const med = median(ratios);
console.log(`\nmedian ratio ${(med * 100).toFixed(1)}% (target ≥ ${TARGET_RATIO * 100}%): ${med >= TARGET_RATIO ? 'met' : 'NOT met'}`);
