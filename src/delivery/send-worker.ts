import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/thread-priority.js';
import { DeliveryError, RequestBuildError, sendOnce } from './send.js';
import type { SendJob, SendResult } from './send-protocol.js';

// The delivery thread: runs got-scraping for forwarding, off the capture thread. Jobs arrive in
// batches (one message per turn of the capture thread); results go back the same way.
const port = parentPort!;
const { niceness } = (workerData ?? {}) as { niceness?: number };
// Lowered only once got-scraping is loaded (~0.4 s of CPU): loading it at the lowest priority took
// many seconds while other processes kept the CPU busy.
if (niceness) lowerThreadPriority(niceness);

let results: SendResult[] = [];

function reply(result: SendResult): void {
    results.push(result);
    if (results.length > 1) return;
    setImmediate(() => {
        const batch = results;
        results = [];
        port.postMessage(batch);
    });
}

/** Deliveries in flight at once (connections to the target); the rest wait here, not yet timed. */
const CONCURRENCY = 16;
const waiting: SendJob[] = [];
let running = 0;

function start(job: SendJob): void {
    running++;
    const target = { url: new URL(job.url), address: job.address, family: job.family };
    const body = job.body ? Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength) : undefined;
    sendOnce(target, body === undefined ? { method: job.method, headers: job.headers } : { method: job.method, headers: job.headers, body }, job.timeoutMs)
        .then(
            (response) => reply({ id: job.id, ...response }),
            (error: unknown) => reply({ id: job.id, error: describe(error) }),
        )
        .finally(() => {
            running--;
            const next = waiting.shift();
            if (next) start(next);
        });
}

/** An error as plain data for the message back. */
function describe(error: unknown): Extract<SendResult, { error: unknown }>['error'] {
    if (error instanceof DeliveryError) return { kind: error.kind, ...(error.code !== undefined ? { code: error.code } : {}), message: error.message };
    if (error instanceof RequestBuildError) return { kind: 'invalid', message: error.message };
    return { message: error instanceof Error ? error.message : String(error) };
}

port.on('message', (jobs: SendJob[]) => {
    for (const job of jobs) {
        if (running < CONCURRENCY) start(job);
        else waiting.push(job);
    }
});
