// CPU time per request of each thread of a running server, which survives a noisy machine better than req/s.
// usage: node bench/cpu-per-request.mjs <pid> <url> [requests=80000]
// Sends the ingest benchmark's 1 KB JSON POST with autocannon (50 connections), reads
// /proc/<pid>/task/*/stat before and after, and prints µs of CPU per request for every thread that
// used more than 0.5 µs, plus autocannon's own (this process).
import autocannon from 'autocannon';
import { readFileSync, readdirSync } from 'node:fs';
import { BODY } from './lib/payload.mjs';

const [pid, url, amount] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] ?? 80_000)];
if (!pid || !url) {
    console.error('usage: node bench/cpu-per-request.mjs <pid> <url> [requests]');
    process.exit(2);
}
const TICKS_PER_S = 100;
const snapshot = () =>
    Object.fromEntries(
        readdirSync(`/proc/${pid}/task`).map((tid) => {
            const raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
            const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
            const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
            return [`${tid} ${name}`, Number(fields[11]) + Number(fields[12])];
        }),
    );
const load = (n) => autocannon({ url, method: 'POST', connections: 50, amount: n, headers: { 'content-type': 'application/json' }, body: BODY });

await load(3_000);
const before = snapshot();
const ownBefore = process.cpuUsage();
const started = performance.now();
const result = await load(amount);
const seconds = (performance.now() - started) / 1000;
const after = snapshot();
const own = process.cpuUsage(ownBefore);
console.log(`${amount} requests in ${seconds.toFixed(1)} s (${Math.round(amount / seconds)} req/s), p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
console.log(`autocannon (this process): ${((own.user + own.system) / amount).toFixed(1)} µs/request`);
for (const [thread, ticks] of Object.entries(after)
    .map(([k, v]) => [k, ((v - (before[k] ?? 0)) * 1e6) / TICKS_PER_S / amount])
    .filter(([, us]) => us > 0.5)
    .sort((a, b) => b[1] - a[1])) {
    console.log(`${thread.padEnd(28)} ${ticks.toFixed(1)} µs/request`);
}
