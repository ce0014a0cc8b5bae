// Programmable pipeline cost: plain ingest against ingest with a JSON Schema, a Stripe signature and a
// small customScript all on, in alternating rounds of the same run (same body, same connections).
//
//   node bench/pipeline.mjs [--rounds 3] [--duration 10] [--connections 50] [--warmup 2]
//
// Both targets are the built service (dist/main.js) on fresh storage with INGEST_RATE_LIMIT_PER_MINUTE=0.
// After each pipeline round, a sample of stored events must carry signatureValid=true (the work was done).
import { createHmac } from 'node:crypto';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { PIPELINE_INPUT, SECRET } from './pipeline-input.mjs';
import { ensureBuilt, firstWebhook, freshDir, median, removeDir, startService, table, loadArgs } from './lib/service.mjs';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP } = loadArgs();
const TARGET_RATIO = 0.25;
const TARGET_P99_MS = 50;


/** A Stripe-Signature header for BODY, signed now (tolerance above covers the whole run). */
function stripeHeader() {
    const t = Math.floor(Date.now() / 1000);
    return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${BODY}`).digest('hex')}`;
}

const cannon = (url, seconds, headers) => autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: seconds, headers: { 'content-type': 'application/json', ...headers }, body: BODY });
const summary = (r) => ({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors + r.timeouts });

async function run(label, input, headers) {
    const dir = freshDir(`pipeline-${label}`);
    const svc = await startService({ dir, input, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
    try {
        const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        if (WARMUP > 0) await cannon(url, WARMUP, headers);
        const result = summary(await cannon(url, DURATION, headers));
        const sample = await svc.json('/logs?limit=20');
        const checked = sample.items.filter((i) => (label === 'pipeline' ? i.signatureValid === true && i.statusCode === 202 : i.statusCode === 200)).length;
        return { ...result, checked: `${checked}/${sample.items.length}` };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

ensureBuilt();
const rows = [];
const ratios = [];
const p99s = [];
for (let round = 1; round <= ROUNDS; round++) {
    const plain = await run('plain', { urlCount: 1 }, {});
    const pipe = await run('pipeline', PIPELINE_INPUT, { 'stripe-signature': stripeHeader() });
    ratios.push(pipe.rps / plain.rps);
    p99s.push(pipe.p99);
    rows.push([round, 'plain', plain.rps.toFixed(0), plain.p50, plain.p99, plain.non2xx, plain.errors, plain.checked]);
    rows.push([round, 'pipeline', pipe.rps.toFixed(0), pipe.p50, pipe.p99, pipe.non2xx, pipe.errors, pipe.checked]);
    process.stderr.write(`round ${round}: plain ${plain.rps.toFixed(0)} req/s, pipeline ${pipe.rps.toFixed(0)} req/s\n`);
}
const ratio = median(ratios);
const p99 = median(p99s);
console.log(`Pipeline benchmark: ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections, ${Buffer.byteLength(BODY)} B JSON POST, Node ${process.version}\n`);
console.log(table(['round', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'sample as expected'], rows));
console.log(`\nmedian pipeline/plain: ${(ratio * 100).toFixed(1)}% (target ≥ ${TARGET_RATIO * 100}%) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`);
console.log(`median pipeline p99: ${p99} ms (target < ${TARGET_P99_MS} ms) ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
