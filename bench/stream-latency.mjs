// Live-stream delivery: 100 SSE clients while ingesting ~1,000 events/s.
//
//   node bench/stream-latency.mjs [--clients 100] [--rate 1000] [--seconds 10] [--main path/to/dist/main.js]
//
// The built service runs as its own process. The clients run in two worker threads of this process
// (so parsing 100 streams does not delay the sender's clock), the sender in the main thread, paced
// at --rate with a keep-alive agent. For every event, latency = time the frame reached a client minus
// time the sender had its answer (same clock: performance.timeOrigin + now()). A frame that beats the
// answer counts as 0 ms. Every client must receive every event (no frame lost). Events are matched by
// the `?seq=N` the sender puts in each webhook URL, which the frame's requestUrl carries.
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ensureBuilt, firstWebhook, freshDir, removeDir, startService } from './lib/service.mjs';
import { BODY } from './lib/payload.mjs';

const { values: args } = parseArgs({ options: { clients: { type: 'string', default: '100' }, rate: { type: 'string', default: '1000' }, seconds: { type: 'string', default: '10' }, main: { type: 'string' } } });
const CLIENTS = Number(args.clients);
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const now = () => performance.timeOrigin + performance.now();

const CLIENT_CODE = `
const { workerData, parentPort } = require('node:worker_threads');
const { request } = require('node:http');
const now = () => performance.timeOrigin + performance.now();
const { url, count, total } = workerData;
// Arrival time per client and event sequence number (the sender puts ?seq=N in the URL): flat
// arrays, so a million entries cost no garbage collection that would delay the clients' clocks.
const seen = Array.from({ length: count }, () => new Float64Array(total).fill(-1));
let open = 0;
for (let c = 0; c < count; c++) {
    request(url, { headers: { Accept: 'text/event-stream' }, agent: false }, (res) => {
        // Bytes, scanned in place: no UTF-8 decoding and no copy per frame, so the clients are not
        // what limits the measurement.
        let buf = Buffer.alloc(0);
        res.on('data', (chunk) => {
            const t = now();
            buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
            let pos = 0;
            let end;
            while ((end = buf.indexOf('\\n\\n', pos)) !== -1) {
                if (buf[pos] === 0x3a && buf.indexOf(': connected', pos) === pos) {
                    if (++open === count) parentPort.postMessage({ open });
                } else {
                    const k = buf.indexOf('?seq=', pos);
                    if (k !== -1 && k < end) {
                        let seq = 0;
                        for (let i = k + 5; buf[i] >= 0x30 && buf[i] <= 0x39; i++) seq = seq * 10 + buf[i] - 0x30;
                        seen[c][seq] = t;
                    }
                }
                pos = end + 2;
            }
            buf = pos === buf.length ? Buffer.alloc(0) : buf.subarray(pos);
        });
    }).end();
}
parentPort.on('message', () => parentPort.postMessage({ seen }));
`;

ensureBuilt();
const dir = freshDir('stream');
const svc = await startService({ dir, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' }, ...(args.main ? { main: args.main } : {}) });
try {
    const id = await firstWebhook(svc);
    const half = [Math.ceil(CLIENTS / 2), Math.floor(CLIENTS / 2)];
    const workers = half.map((count) => new Worker(CLIENT_CODE, { eval: true, workerData: { url: `${svc.url}/log-stream`, count, total: RATE * SECONDS } }));
    await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));

    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    const answered = new Float64Array(RATE * SECONDS).fill(-1);
    let answeredCount = 0;
    let sent = 0;
    let failed = 0;
    const send = (seq) =>
        new Promise((resolve) => {
            const req = request(`${svc.url}/webhook/${id}?seq=${seq}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
                res.resume();
                res.on('end', () => {
                    if (res.statusCode === 200) (answered[seq] = now()), answeredCount++;
                    else failed++;
                    resolve();
                });
            });
            req.on('error', () => (failed++, resolve()));
            req.end(BODY);
        });
    const total = RATE * SECONDS;
    const started = now();
    const inflight = [];
    // Paced: every 10 ms, send what the schedule says is due.
    await new Promise((resolve) => {
        const timer = setInterval(() => {
            const due = Math.min(total, Math.floor(((now() - started) / 1000) * RATE));
            while (sent < due) {
                inflight.push(send(sent));
                sent++;
            }
            if (sent >= total) {
                clearInterval(timer);
                resolve();
            }
        }, 10);
    });
    await Promise.all(inflight);
    const elapsed = (now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const results = await Promise.all(workers.map((w) => new Promise((r) => { w.once('message', r); w.postMessage('report'); })));
    const latencies = [];
    let lost = 0;
    for (const { seen } of results) {
        for (const got of seen) {
            for (let seq = 0; seq < answered.length; seq++) {
                if (answered[seq] < 0) continue;
                if (got[seq] < 0) lost++;
                else latencies.push(Math.max(0, got[seq] - answered[seq]));
            }
        }
    }
    latencies.sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))];
    console.log(`sent ${sent} events in ${elapsed.toFixed(1)} s (${Math.round(sent / elapsed)}/s), ${answeredCount} answered 200, ${failed} failed`);
    console.log(`${CLIENTS} clients: ${latencies.length} frames measured, ${lost} lost`);
    console.log(`answer → frame latency: median ${pct(0.5).toFixed(2)} ms, p99 ${pct(0.99).toFixed(2)} ms, max ${latencies.at(-1).toFixed(2)} ms (target p99 < 50 ms, none lost)`);
    await Promise.all(workers.map((w) => w.terminate()));
    agent.destroy();
} finally {
    await svc.stop();
    removeDir(dir);
}
