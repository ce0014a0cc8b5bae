// CPU time per request of each thread of a running server, which survives a noisy machine better than req/s.
// usage: node bench/cpu-per-request.mjs <pid> <url> [requests=80000]
// Sends the ingest benchmark's 1 KB JSON POST with autocannon (50 connections), reads
// /proc/<pid>/task/*/stat before and after, and prints µs of CPU per request for every thread that
// used more than 0.5 µs, plus autocannon's own (this process).
import autocannon from 'autocannon';
import { BODY } from './lib/payload.mjs';
import { measureThreads, threadCpuPerRequest } from './lib/service.mjs';

const [pid, url, amount] = [Number(process.argv[2]), process.argv[3], Number(process.argv[4] ?? 80_000)];
if (!pid || !url) {
    console.error('usage: node bench/cpu-per-request.mjs <pid> <url> [requests]');
    process.exit(2);
}
const load = (n) => autocannon({ url, method: 'POST', connections: 50, amount: n, headers: { 'content-type': 'application/json' }, body: BODY });

await load(3_000);
const { result, seconds, ownUs, before, after } = await measureThreads(pid, () => load(amount));
console.log(`${amount} requests in ${seconds.toFixed(1)} s (${Math.round(amount / seconds)} req/s), p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`);
console.log(`autocannon (this process): ${(ownUs / amount).toFixed(1)} µs/request`);
for (const { tid, name, us } of threadCpuPerRequest(before, after, amount)) console.log(`${`${tid} ${name}`.padEnd(28)} ${us.toFixed(1)} µs/request`);
