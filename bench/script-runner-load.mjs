// ScriptRunner alone under load: 50 concurrent runs of the pipeline benchmark's script on the default
// 2 isolates for 3 s, reporting runs/s and the capture thread's (main thread's) busy time per run,
// from performance.eventLoopUtilization. The isolates' own threads are not in that figure.
//
//   npm run build && node --no-node-snapshot bench/script-runner-load.mjs
import { performance } from 'node:perf_hooks';
import { ScriptRunner } from '../dist/sandbox/runner.js';
import { PIPELINE_INPUT } from '../bench/pipeline-input.mjs';
import { BODY } from '../bench/lib/payload.mjs';
const value = JSON.parse(BODY);
const input = { event: { body: value, headers: { 'content-type': 'application/json' }, statusCode: 200, responseBody: 'OK', responseHeaders: {} }, req: { headers: {} }, status: { ACCEPTED: 202 } };
const runner = new ScriptRunner(PIPELINE_INPUT.customScript, { memoryMb: 32, timeoutMs: 1000, isolates: 2, maxQueue: 1000 });
let n = 0; let stop = false;
const worker = async () => { while (!stop) { const r = await runner.run(input, () => {}); if (!r.ok) throw new Error(r.error); n++; } };
const ws = Array.from({ length: 50 }, worker);
await new Promise((r) => setTimeout(r, 500));
const n0 = n; const e0 = performance.eventLoopUtilization(); const t0 = performance.now();
await new Promise((r) => setTimeout(r, 3000));
const e = performance.eventLoopUtilization(e0); const t = (performance.now() - t0) / 1000; const k = n - n0;
stop = true; await Promise.all(ws); runner.dispose();
console.log(`${(k / t).toFixed(0)} runs/s, main thread busy ${(e.utilization * 100).toFixed(0)}%, ${(e.active * 1000 / k).toFixed(0)} µs main-thread per run`);
