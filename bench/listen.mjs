// The `listen` command (issue 35, item 7): the built service and the built command as real processes,
// delivering to a node:http receiver in this process.
//
//   node bench/listen.mjs [--rate 100] [--seconds 10] [--backlog 10000] [--big-mb 100] [--only latency,catchup,memory]
//
// 1. Latency: captures sent at --rate per second for --seconds while the command runs live; for each,
//    the time from the capture's answer to the sender to its receipt at the local server.
// 2. Catch-up: --backlog small captures stored first, then the command started from the oldest
//    (a fresh state file) at concurrency 1 and 8; deliveries per second, from the first receipt to the
//    last (and from the command's spawn, its start included).
// 3. Memory: one --big-mb MB body (offloaded) delivered; the command's peak RSS (VmHWM).
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, firstWebhook, freshDir, processCpuUs, removeDir, root, startService, table, waitFor } from './lib/service.mjs';

const { values } = parseArgs({
    options: { rate: { type: 'string', default: '100' }, seconds: { type: 'string', default: '10' }, backlog: { type: 'string', default: '10000' }, 'big-mb': { type: 'string', default: '100' }, only: { type: 'string', default: 'latency,catchup,memory' } },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const BACKLOG = Number(values.backlog);
const BIG_MB = Number(values['big-mb']);
const ONLY = new Set(values.only.split(','));
const CLI = join(root, 'dist', 'cli', 'main.js');
const SMALL = (i) => JSON.stringify({ id: `evt_${i}`, type: 'invoice.paid', seq: i, data: { object: { amount: 1999, currency: 'usd' } } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A receiver that notes when each delivery (by the `seq` of its JSON body) arrived, and counts bytes of large ones. */
async function startReceiver() {
    const arrivals = new Map();
    let count = 0;
    let bytes = 0;
    const server = createServer((req, res) => {
        const chunks = [];
        let size = 0;
        req.on('data', (c) => {
            size += c.length;
            if (size <= 4096) chunks.push(c);
        });
        req.on('end', () => {
            const at = performance.now();
            count++;
            bytes = size;
            if (size <= 4096) {
                const seq = JSON.parse(Buffer.concat(chunks).toString()).seq;
                if (!arrivals.has(seq)) arrivals.set(seq, at);
            }
            res.end('ok');
        });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    return { url: `http://127.0.0.1:${server.address().port}/hooks`, arrivals, count: () => count, bytes: () => bytes, reset: () => ((count = 0), arrivals.clear()), close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) };
}

/** Starts the command; resolves once it printed its Ready line. */
async function startCommand(svc, receiver, args) {
    const state = join(mkdtempSync(join(tmpdir(), 'listen-bench-')), 'state.json');
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, [CLI, 'listen', svc.url, '--forward-to', receiver.url, '--state', state, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (s) => (err += s));
    const exited = new Promise((r) => child.once('exit', r));
    await waitFor(async () => (err.includes('Ready!') ? true : undefined), { what: `the command to start (${err})` });
    return { child, spawnedAt, stderr: () => err, stop: async () => (child.kill('SIGINT'), await exited, rmSync(join(state, '..'), { recursive: true, force: true })) };
}

/** POSTs one capture; resolves when its answer has been read. */
function post(url, body, agent) {
    return new Promise((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
            res.resume();
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`capture answered ${res.statusCode}`))));
        });
        req.on('error', reject);
        req.end(body);
    });
}

async function latency(svc, hook, receiver) {
    const cmd = await startCommand(svc, receiver, []);
    const answered = new Map();
    const n = RATE * SECONDS;
    const started = performance.now();
    const sends = [];
    for (let i = 0; i < n; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        sends.push(post(hook, SMALL(i)).then(() => answered.set(i, performance.now())));
    }
    await Promise.all(sends);
    await waitFor(async () => (receiver.arrivals.size >= n ? true : undefined), { what: 'every live capture to arrive', timeoutMs: 60_000 });
    await cmd.stop();
    // Arrival before the sender read its answer (the frame can beat the answer's last bytes): 0.
    const lags = [...answered].map(([i, at]) => Math.max(0, receiver.arrivals.get(i) - at)).sort((a, b) => a - b);
    return { n, p50: pct(lags, 50), p99: pct(lags, 99), max: lags.at(-1) };
}

async function fill(hook, n) {
    const agent = new (await import('node:http')).Agent({ keepAlive: true, maxSockets: 16 });
    let next = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
        while (next < n) await post(hook, SMALL(next++), agent);
    }));
    agent.destroy();
}

async function catchUp(svc, receiver, concurrency) {
    receiver.reset();
    const svcCpu = processCpuUs(svc.pid);
    const cmd = await startCommand(svc, receiver, ['--from', 'oldest', '--concurrency', String(concurrency)]);
    await waitFor(async () => (receiver.arrivals.size >= BACKLOG ? true : undefined), { what: `the backlog to arrive at concurrency ${concurrency}`, timeoutMs: 300_000, intervalMs: 5 });
    const times = [...receiver.arrivals.values()].sort((a, b) => a - b);
    // CPU per delivery: the service's, and the command's (its start included).
    const cpu = { service: (processCpuUs(svc.pid) - svcCpu) / BACKLOG, command: processCpuUs(cmd.child.pid) / BACKLOG };
    await cmd.stop();
    const span = (times.at(-1) - times[0]) / 1000;
    return { concurrency, perSecond: (BACKLOG - 1) / span, withStart: BACKLOG / ((times.at(-1) - cmd.spawnedAt) / 1000), received: receiver.count(), cpu };
}

async function memory(receiver) {
    const dir = freshDir('listen-big');
    const svc = await startService({ dir, input: { urlCount: 1, maxPayloadSize: 104857600 } });
    try {
        const hook = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        const size = BIG_MB * 1024 * 1024;
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        await new Promise((resolve, reject) => {
            const req = httpRequest(hook, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': size } }, (res) => (res.resume(), res.on('end', resolve)));
            req.on('error', reject);
            (async () => {
                for (let i = 0; i < BIG_MB; i++) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
                req.end();
            })();
        });
        receiver.reset();
        const cmd = await startCommand(svc, receiver, ['--from', 'oldest']);
        await waitFor(async () => (receiver.count() >= 1 ? true : undefined), { what: 'the big body to arrive', timeoutMs: 120_000 });
        const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${cmd.child.pid}/status`, 'utf8'))[1]) * 1024;
        const delivered = receiver.bytes();
        await cmd.stop();
        return { size, delivered, peakRssMb: hwm / 1024 / 1024 };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

ensureBuilt();
const receiver = await startReceiver();
const rows = [];
if (ONLY.has('latency') || ONLY.has('catchup')) {
    const dir = freshDir('listen');
    const svc = await startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
    try {
        const hook = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        if (ONLY.has('latency')) {
            const r = await latency(svc, hook, receiver);
            rows.push([`capture answered → local receipt, ${RATE}/s live (${r.n} captures), p50`, `${r.p50.toFixed(1)} ms`, '< 20 ms']);
            rows.push([`… p99 (max ${r.max.toFixed(1)} ms)`, `${r.p99.toFixed(1)} ms`, '< 200 ms']);
        }
        if (ONLY.has('catchup')) {
            // A service of its own for the backlog: exactly BACKLOG captures.
            const dir2 = freshDir('listen-backlog');
            const svc2 = await startService({ dir: dir2, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
            try {
                await fill(`${svc2.url}/webhook/${await firstWebhook(svc2)}`, BACKLOG);
                for (const [c, ceiling] of [[1, '≥ 500/s'], [8, '≥ 2,000/s']]) {
                    const r = await catchUp(svc2, receiver, c);
                    rows.push([`catch-up of ${BACKLOG.toLocaleString('en-US')} small captures, concurrency ${c} (with the command's start: ${Math.round(r.withStart)}/s; CPU per delivery: service ${Math.round(r.cpu.service)} µs, command ${Math.round(r.cpu.command)} µs)`, `${Math.round(r.perSecond)}/s`, ceiling]);
                }
            } finally {
                await svc2.stop();
                removeDir(dir2);
            }
        }
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}
if (ONLY.has('memory')) {
    const r = await memory(receiver);
    if (r.delivered !== r.size) throw new Error(`the big body arrived with ${r.delivered} of ${r.size} bytes`);
    rows.push([`the command's peak RSS delivering a ${BIG_MB} MB body`, `${r.peakRssMb.toFixed(1)} MB`, '< 100 MB']);
}
await receiver.close();
console.log(table(['what', 'measured', 'ceiling'], rows));
