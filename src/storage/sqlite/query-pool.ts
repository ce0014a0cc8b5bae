import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { startSiblingWorker } from '../../lib/worker-url.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import type { QueryReply, QueryRequest } from './query-worker.js';

interface Slot {
    worker: Worker;
    busy: number;
}

/** A small pool of query workers; each query goes to the least busy one. */
export class QueryPool {
    private readonly slots: Slot[] = [];
    private readonly waiting = new Map<number, { resolve: (p: LogsPage) => void; reject: (e: Error) => void; slot: Slot }>();
    private next = 1;

    constructor(private readonly file: string, size: number) {
        for (let i = 0; i < size; i++) this.slots.push(this.spawn());
    }

    /** Runs one query; rejects with the AppError the worker raised, or a plain Error for a fault. */
    run(query: LogsQuery): Promise<LogsPage> {
        const slot = this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
        const n = this.next++;
        slot.busy++;
        return new Promise<LogsPage>((resolve, reject) => {
            this.waiting.set(n, { resolve, reject, slot });
            slot.worker.postMessage({ n, query } satisfies QueryRequest);
        });
    }

    /** Stops every worker. */
    async close(): Promise<void> {
        await Promise.all(this.slots.map((s) => s.worker.terminate()));
    }

    private spawn(): Slot {
        const worker = startSiblingWorker(import.meta.url, 'query-worker', { workerData: { file: this.file } });
        const slot: Slot = { worker, busy: 0 };
        worker.unref();
        worker.on('message', (reply: QueryReply) => {
            const w = this.waiting.get(reply.n);
            if (!w) return;
            this.waiting.delete(reply.n);
            w.slot.busy--;
            if (reply.page) w.resolve(reply.page);
            else if (reply.error && reply.error.status < 500) w.reject(new AppError(reply.error.status, reply.error.message, reply.error.extra));
            else w.reject(new Error(reply.error?.message ?? 'query failed'));
        });
        worker.on('error', (error) => this.replace(slot, error));
        return slot;
    }

    private replace(slot: Slot, error: Error): void {
        for (const [n, w] of this.waiting) {
            if (w.slot !== slot) continue;
            this.waiting.delete(n);
            w.reject(error);
        }
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots[index] = this.spawn();
    }
}
