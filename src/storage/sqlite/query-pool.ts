import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { startSiblingWorker } from '../../lib/worker-url.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import { CountCache, epochKey } from './query/count-cache.js';
import { finishPass, mergePasses, restoreBuffers, splitRange, type CountRequest } from './query/pass.js';
import type { QueryReply, QueryRequest, QueryWorkerData } from './query-worker.js';

interface Slot {
    worker: Worker;
    busy: number;
}

type WithoutN<T> = T extends unknown ? Omit<T, 'n'> : never;
type Request = WithoutN<QueryRequest>;

/** Tuning of the pool: scan slice size, and the fewest events whose full passes are split (tests set both low). */
export interface QueryPoolOptions {
    slice?: number;
    splitFrom?: number;
}

// Below this many events a full pass takes ~15 ms; splitting it gains less than it costs.
const SPLIT_FROM = 20_000;

/**
 * A small pool of query workers; each query goes to the least busy one. A query that needs a pass
 * over every body comes back as that pass; it is split by seq range over every worker, which read
 * their ranges concurrently, and the pieces are merged here exactly as one worker merges its slices.
 */
export class QueryPool {
    private readonly slots: Slot[] = [];
    private readonly waiting = new Map<number, { resolve: (r: QueryReply) => void; reject: (e: Error) => void; slot: Slot }>();
    private readonly data: QueryWorkerData;
    /** Counts the pool split, kept up to date with appends as each worker's appendOnlyCount does. */
    private readonly counts = new CountCache();
    private next = 1;

    constructor(file: string, size: number, options: QueryPoolOptions = {}) {
        this.data = { file, splitFrom: options.splitFrom ?? SPLIT_FROM, ...(options.slice ? { slice: options.slice } : {}) };
        for (let i = 0; i < size; i++) this.slots.push(this.spawn());
    }

    /** Runs one query; rejects with the AppError the worker raised, or a plain Error for a fault. */
    async run(query: LogsQuery): Promise<LogsPage> {
        const first = await this.send(this.byLoad()[0]!, { query, split: this.slots.length > 1 });
        if (first.count) return { ...first.page!, total: await this.count(first.count) };
        if (!first.pass) return first.page!;
        const pass = first.pass;
        const slots = this.byLoad();
        const replies = await Promise.all(splitRange(pass.top, slots.length).map(([lo, hi], i) => this.send(slots[i]!, { part: { pass, lo, hi } })));
        const parts = replies.map((r) => {
            for (const row of r.part!.rows) restoreBuffers(row);
            return r.part!;
        });
        return finishPass(pass, mergePasses(pass, parts));
    }

    /**
     * The total a page left to the pool: the cached count plus the matches above its seq; those
     * are counted by seq range on every worker when they span at least `splitFrom` events.
     */
    private async count(request: CountRequest): Promise<number> {
        const key = epochKey(request.epoch, request.key);
        const hit = this.counts.get(key, request.top);
        const lo = hit?.seq ?? 0;
        let count = hit?.count ?? 0;
        if (lo < request.top) {
            const slots = request.top - lo >= this.data.splitFrom ? this.byLoad() : this.byLoad().slice(0, 1);
            const replies = await Promise.all(splitRange(request.top, slots.length, lo).map(([a, b], i) => this.send(slots[i]!, { counting: { count: request, lo: a, hi: b } })));
            for (const r of replies) count += r.counted!;
        }
        this.counts.set(key, request.top, count);
        return count;
    }

    /** Stops every worker. */
    async close(): Promise<void> {
        await Promise.all(this.slots.map((s) => s.worker.terminate()));
    }

    private byLoad(): Slot[] {
        return [...this.slots].sort((a, b) => a.busy - b.busy);
    }

    private send(slot: Slot, request: Request): Promise<QueryReply> {
        const n = this.next++;
        slot.busy++;
        return new Promise<QueryReply>((resolve, reject) => {
            this.waiting.set(n, { resolve, reject, slot });
            slot.worker.postMessage({ ...request, n } as QueryRequest);
        });
    }

    private spawn(): Slot {
        const worker = startSiblingWorker(import.meta.url, 'query-worker', { workerData: this.data });
        const slot: Slot = { worker, busy: 0 };
        worker.unref();
        worker.on('message', (reply: QueryReply) => {
            const w = this.waiting.get(reply.n);
            if (!w) return;
            this.waiting.delete(reply.n);
            w.slot.busy--;
            if (!reply.error) w.resolve(reply);
            else if (reply.error.status < 500) w.reject(new AppError(reply.error.status, reply.error.message, reply.error.extra));
            else w.reject(new Error(reply.error.message || 'query failed'));
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
