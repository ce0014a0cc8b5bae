import type { Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../lib/worker-url.js';
import type { CheckedTarget } from './ssrf-guard.js';
import { DeliveryError, RequestBuildError, type TargetResponse } from './send.js';
import type { SendJob, SendResult } from './send-protocol.js';

/** A request with its bytes in memory (a streamed body is sent from the calling thread). */
export interface BufferedRequest {
    method: string;
    headers: Record<string, string>;
    body?: Buffer;
}

type Pending = { resolve: (response: TargetResponse) => void; reject: (error: Error) => void };

/**
 * `sendOnce` on a thread of its own. got-scraping costs ~0.5 ms of CPU per delivery; on the
 * capture thread that time was taken from capture itself (forwarding at full ingest speed kept it
 * busy with deliveries). The jobs of one turn go over as one message, and results come back in
 * batches. The thread starts on first use, does not keep the process alive, and is started again
 * after a crash: the deliveries it held fail as network errors, which the caller's schedule retries.
 */
export class SendThread {
    /** `niceness`: how far below normal the thread's CPU priority is set (Linux; 0 leaves it). */
    constructor(private readonly niceness = 0) {}

    private worker: Worker | undefined;
    private readonly pending = new Map<number, Pending>();
    private nextId = 1;
    private outbox: SendJob[] = [];

    send(target: CheckedTarget, req: BufferedRequest, timeoutMs: number): Promise<TargetResponse> {
        return new Promise<TargetResponse>((resolve, reject) => {
            const id = this.nextId++;
            this.pending.set(id, { resolve, reject });
            const { url, address, family } = target;
            const job: SendJob = { id, url: url.href, address, family, method: req.method, headers: req.headers, timeoutMs };
            // A Buffer may view part of a larger allocation, which a message would copy whole.
            if (req.body) job.body = req.body.byteLength === req.body.buffer.byteLength ? req.body : new Uint8Array(req.body);
            this.outbox.push(job);
            if (this.outbox.length === 1) setImmediate(() => this.flush());
        });
    }

    /** Starts the thread now rather than on first use (it takes a while to load). */
    warm(): void {
        this.thread();
    }

    /** Stops the thread; deliveries in flight fail as network errors. */
    async close(): Promise<void> {
        const worker = this.worker;
        this.worker = undefined;
        if (worker) await worker.terminate();
        this.failAll('delivery thread stopped');
    }

    private flush(): void {
        const jobs = this.outbox;
        this.outbox = [];
        if (jobs.length > 0) this.thread().postMessage(jobs);
    }

    private thread(): Worker {
        if (this.worker) return this.worker;
        const worker = startSiblingWorker(import.meta.url, 'send-worker', { workerData: { niceness: this.niceness } });
        worker.unref();
        worker.on('message', (results: SendResult[]) => {
            for (const result of results) this.settle(result);
        });
        const lost = (why: string): void => {
            if (this.worker !== worker) return;
            this.worker = undefined;
            this.failAll(why);
        };
        worker.on('error', (error) => lost(`delivery thread failed: ${error.message}`));
        worker.on('exit', (code) => lost(`delivery thread stopped (exit code ${code})`));
        this.worker = worker;
        return worker;
    }

    private settle(result: SendResult): void {
        const pending = this.pending.get(result.id);
        if (!pending) return;
        this.pending.delete(result.id);
        if (!('error' in result)) {
            pending.resolve({ statusCode: result.statusCode, body: result.body, truncated: result.truncated });
            return;
        }
        const { kind, code, message } = result.error;
        if (kind === 'invalid') pending.reject(new RequestBuildError(message));
        else pending.reject(kind ? new DeliveryError(kind, code, message) : new Error(message));
    }

    private failAll(why: string): void {
        const pending = [...this.pending.values()];
        this.pending.clear();
        for (const p of pending) p.reject(new DeliveryError('network', 'EWORKER', why));
    }
}
