// Ingest throughput: the real service against the bare node:http ceiling, in alternating rounds.
//
//   node bench/ingest.mjs [--rounds 3] [--duration 10] [--connections 50] [--warmup 2]
//
// Each round runs autocannon against bench/bare-server.mjs, then against the built service on a fresh
// storage folder (INGEST_RATE_LIMIT_PER_MINUTE=0), with the same ~1 KB JSON POST. After each service
// run, every 2xx must be durable: storage.eventsStored from /system/metrics must be ≥ the 2xx count.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { ensureBuilt, firstWebhook, freshDir, median, removeDir, root, startService, table, waitFor, loadArgs } from './lib/service.mjs';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP } = loadArgs();
const TARGET_RATIO = 0.25;
const TARGET_P99_MS = 25;

// A typical provider event, padded to about 1 KB.
const body = BODY;

/** One autocannon run; resolves with its result. */
function cannon(url, seconds) {
    return autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: seconds, headers: { 'content-type': 'application/json' }, body });
}

/** Starts bench/bare-server.mjs on a free port. */
async function startBare() {
    const child = spawn(process.execPath, [join(root, 'bench', 'bare-server.mjs'), '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (out += s));
    const port = await waitFor(async () => /listening (\d+)/.exec(out)?.[1], { what: 'the bare server' });
    const exited = new Promise((r) => child.once('exit', r));
    return { url: `http://127.0.0.1:${port}/`, stop: () => (child.kill('SIGTERM'), exited) };
}

const summary = (r) => ({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors + r.timeouts });

async function runBare() {
    const bare = await startBare();
    try {
        if (WARMUP > 0) await cannon(bare.url, WARMUP);
        return summary(await cannon(bare.url, DURATION));
    } finally {
        await bare.stop();
    }
}

async function runService() {
    const dir = freshDir('ingest');
    const svc = await startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
    try {
        const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        const warm = WARMUP > 0 ? await cannon(url, WARMUP) : { '2xx': 0 };
        const result = summary(await cannon(url, DURATION));
        const stored = (await svc.json('/system/metrics')).storage.eventsStored;
        const answered = warm['2xx'] + result.ok;
        return { ...result, stored, answered, durable: stored >= answered };
    } finally {
        const exit = await svc.stop();
        if (exit.code !== 0) console.error(`service exited with ${JSON.stringify(exit)}`);
        removeDir(dir);
    }
}

ensureBuilt();
const rows = [];
const ratios = [];
const serviceP99 = [];
let allDurable = true;
for (let round = 1; round <= ROUNDS; round++) {
    const bare = await runBare();
    const svc = await runService();
    ratios.push(svc.rps / bare.rps);
    serviceP99.push(svc.p99);
    allDurable &&= svc.durable;
    rows.push([round, 'bare', bare.rps.toFixed(0), bare.p50, bare.p99, bare.non2xx, bare.errors, '']);
    rows.push([round, 'service', svc.rps.toFixed(0), svc.p50, svc.p99, svc.non2xx, svc.errors, `${svc.stored} stored / ${svc.answered} 2xx ${svc.durable ? '✓' : '✗ LOST'}`]);
    process.stderr.write(`round ${round}: bare ${bare.rps.toFixed(0)} req/s, service ${svc.rps.toFixed(0)} req/s\n`);
}

const ratio = median(ratios);
const p99 = median(serviceP99);
console.log(`Ingest benchmark: ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections, ${Buffer.byteLength(body)} B JSON POST, Node ${process.version}\n`);
console.log(table(['round', 'target', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'durability'], rows));
console.log(`\nmedian service/bare: ${(ratio * 100).toFixed(1)}% (target ≥ ${TARGET_RATIO * 100}%) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`);
console.log(`median service p99: ${p99} ms (target < ${TARGET_P99_MS} ms) ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
console.log(`every 2xx durable: ${allDurable ? 'yes' : 'NO'}`);
process.exitCode = allDurable ? 0 : 1;
