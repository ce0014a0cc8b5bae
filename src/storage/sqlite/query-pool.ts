import type { Worker } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { startSiblingWorker } from '../../lib/worker-url.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import { CountCache, epochKey } from './query/count-cache.js';
import { finishPass, mergePasses, restoreBuffers, splitRange, type CountRequest } from './query/pass.js';
import { queryCancelled, queryRefused } from '../query-errors.js';
import { QueryJob } from './query-job.js';
import type { QueryCancel, QueryReply, QueryRequest, QueryWorkerData } from './query-worker.js';

interface Slot {
    worker: Worker;
    busy: number;
}

type WithoutN<T> = T extends unknown ? Omit<T, 'n'> : never;
type Request = WithoutN<QueryRequest>;

/**
 * Tuning of the pool: scan slice bounds and the fewest events whose full passes are split (tests set
 * both low), and the bounds that keep it from being overrun.
 */
export interface QueryPoolOptions {
    slice?: number;
    /** Most bytes one scan slice reads (bodies, and a row's worth for each event). */
    sliceBytes?: number;
    splitFrom?: number;
    /** Queries admitted at once, running or waiting; one more is refused with 503. */
    maxInFlight?: number;
    /** Passes over every body (or counts that read every row) running at once; more wait in line. */
    maxScans?: number;
    /** Time limit of one query from admission, ms (0: none); over it the query is stopped with 504. */
    timeoutMs?: number;
}

// Below this many events a full pass takes ~15 ms; splitting it gains less than it costs.
const SPLIT_FROM = 20_000;
/** The bounds in production (see README, "Query limits"). */
export const POOL_LIMITS = { maxInFlight: 32, maxScans: 2, timeoutMs: 15_000 } as const;

/** Counters for tests and metrics. */
export interface PoolStats {
    /** Queries refused because maxInFlight were admitted. */
    refused: number;
    /** Queries stopped by the time limit. */
    timedOut: number;
    /** Queries whose caller went away. */
    cancelled: number;
    /** Worker requests that stopped part-way on a cancel, rather than running to the end. */
    stoppedEarly: number;
}

/**
 * A small pool of query workers; each request goes to the least busy one. A query that needs a pass
 * over every body comes back as that pass; it is split by seq range over every worker, which read
 * their ranges concurrently, and the pieces are merged here exactly as one worker merges its slices.
 * Workers run passes slice by slice and take other requests in between, so a quick page is not
 * stuck behind a search. At most `maxScans` passes run at once; queries beyond `maxInFlight` are
 * refused; each has a time limit and an AbortSignal, both of which stop its work at the next slice.
 */
export class QueryPool {
    private readonly slots: Slot[] = [];
    private readonly waiting = new Map<number, { resolve: (r: QueryReply) => void; reject: (e: Error) => void; slot: Slot; job: QueryJob }>();
    private readonly data: QueryWorkerData;
    /** Counts the pool split, kept up to date with appends as each worker's appendOnlyCount does. */
    private readonly counts = new CountCache();
    private readonly limits: { maxInFlight: number; maxScans: number; timeoutMs: number };
    private next = 1;
    private inFlight = 0;
    private scansRunning = 0;
    private readonly scanLine: (() => void)[] = [];
    readonly stats: PoolStats = { refused: 0, timedOut: 0, cancelled: 0, stoppedEarly: 0 };

    /**
     * Workers start on demand, up to `size`: a query starts one when every worker is busy, a split
     * pass starts them all. A service nobody queries holds no query thread (each costs ~35 ms of
     * CPU to start and ~10 MB of memory), and the first query waits for one thread's start.
     */
    constructor(file: string, private readonly size: number, options: QueryPoolOptions = {}) {
        this.data = { file, splitFrom: options.splitFrom ?? SPLIT_FROM, ...(options.slice ? { slice: options.slice } : {}), ...(options.sliceBytes ? { sliceBytes: options.sliceBytes } : {}) };
        this.limits = {
            maxInFlight: options.maxInFlight ?? POOL_LIMITS.maxInFlight,
            maxScans: Math.max(1, options.maxScans ?? POOL_LIMITS.maxScans),
            timeoutMs: options.timeoutMs ?? POOL_LIMITS.timeoutMs,
        };
    }

    /**
     * Runs one query; rejects with the AppError the worker raised, a 503 when the pool is full, a
     * 504 past the time limit, or a plain Error for a fault. `signal` aborts it (its client left).
     */
    async run(query: LogsQuery, signal?: AbortSignal): Promise<LogsPage> {
        if (signal?.aborted) throw queryCancelled();
        if (this.inFlight >= this.limits.maxInFlight) {
            this.stats.refused++;
            throw queryRefused(this.limits.maxInFlight);
        }
        this.inFlight++;
        const job = new QueryJob(this.limits.timeoutMs, signal, (reason) => {
            if (reason.status === 504) this.stats.timedOut++;
            else this.stats.cancelled++;
            for (const [n, w] of this.waiting) if (w.job === job) w.slot.worker.postMessage({ cancel: n } satisfies QueryCancel);
        });
        try {
            return await job.race(this.execute(query, job));
        } finally {
            job.dispose();
            this.inFlight--;
        }
    }

    private async execute(query: LogsQuery, job: QueryJob): Promise<LogsPage> {
        const first = await this.send(this.leastBusy(), { query, split: this.size > 1 }, job);
        if (!first.count && !first.pass) return first.page!;
        const release = await this.scanSlot(job);
        try {
            if (first.count) return { ...first.page!, total: await this.count(first.count, job) };
            const pass = first.pass!;
            const slots = this.all();
            const replies = await Promise.all(splitRange(pass.top, slots.length).map(([lo, hi], i) => this.send(slots[i]!, { part: { pass, lo, hi } }, job)));
            const parts = replies.map((r) => {
                for (const row of r.part!.rows) restoreBuffers(row);
                return r.part!;
            });
            return finishPass(pass, mergePasses(pass, parts));
        } finally {
            release();
        }
    }

    /** Waits for one of the maxScans places for a full pass; resolves to its release. */
    private async scanSlot(job: QueryJob): Promise<() => void> {
        if (this.scansRunning < this.limits.maxScans) this.scansRunning++;
        else {
            await new Promise<void>((resolve, reject) => {
                const turn = (): void => resolve();
                this.scanLine.push(turn);
                job.onStop((reason) => {
                    const at = this.scanLine.indexOf(turn);
                    if (at >= 0) this.scanLine.splice(at, 1);
                    reject(reason);
                });
            });
        }
        let released = false;
        return () => {
            if (released) return;
            released = true;
            // The place passes straight to the next in line, or is freed.
            const next = this.scanLine.shift();
            if (next) next();
            else this.scansRunning--;
        };
    }

    /**
     * The total a page left to the pool: the cached count plus the matches above its seq; those
     * are counted by seq range on every worker when they span at least `splitFrom` events.
     */
    private async count(request: CountRequest, job: QueryJob): Promise<number> {
        const key = epochKey(request.epoch, request.key);
        const hit = this.counts.get(key, request.top);
        const lo = hit?.seq ?? 0;
        let count = hit?.count ?? 0;
        if (lo < request.top) {
            const slots = request.top - lo >= this.data.splitFrom ? this.all() : [this.leastBusy()];
            const replies = await Promise.all(splitRange(request.top, slots.length, lo).map(([a, b], i) => this.send(slots[i]!, { counting: { count: request, lo: a, hi: b } }, job)));
            for (const r of replies) count += r.counted!;
        }
        this.counts.set(key, request.top, count);
        return count;
    }

    /** Worker requests sent and not yet answered. */
    get pending(): number {
        return this.waiting.size;
    }

    /** Stops every worker. */
    async close(): Promise<void> {
        await Promise.all(this.slots.map((s) => s.worker.terminate()));
    }

    /** The idlest worker; a new one when every worker is busy and the pool has room. */
    private leastBusy(): Slot {
        const slot = this.slots.reduce<Slot | undefined>((best, s) => (!best || s.busy < best.busy ? s : best), undefined);
        if (slot && (slot.busy === 0 || this.slots.length >= this.size)) return slot;
        const started = this.spawn();
        this.slots.push(started);
        return started;
    }

    /** Every worker of the pool (started now if not yet), the idlest first. */
    private all(): Slot[] {
        while (this.slots.length < this.size) this.slots.push(this.spawn());
        return [...this.slots].sort((a, b) => a.busy - b.busy);
    }

    private send(slot: Slot, request: Request, job: QueryJob): Promise<QueryReply> {
        // A stopped query starts no more work.
        if (job.stopped) return Promise.reject(job.stopped);
        const n = this.next++;
        slot.busy++;
        return new Promise<QueryReply>((resolve, reject) => {
            this.waiting.set(n, { resolve, reject, slot, job });
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
            if (reply.stopped) {
                this.stats.stoppedEarly++;
                w.reject(w.job.stopped ?? queryCancelled());
            } else if (!reply.error) w.resolve(reply);
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
