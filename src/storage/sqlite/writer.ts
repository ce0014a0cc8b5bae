import type { Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../../lib/worker-url.js';
import type { NewEvent } from '../types.js';
import type { WriterReply, WriterRequest } from './writer-protocol.js';

/**
 * Posting a byte view clones its whole underlying buffer. A body read off a socket is a slice of a
 * 64 KB read buffer (or of an 8 KB pool slab), so it gets its own exact-size copy first.
 */
function compactBody(event: NewEvent): NewEvent {
    const raw = event.bodyRaw;
    if (!raw || (raw.byteOffset === 0 && raw.buffer.byteLength === raw.byteLength)) return event;
    return { ...event, bodyRaw: new Uint8Array(raw) };
}

/** Appends handed to the writer per message while more keep arriving. */
const PIPELINE_GROUP = 8;

type Pending = { resolve: (reply: WriterReply) => void; reject: (error: Error) => void };
type WithoutBatch<T> = T extends unknown ? Omit<T, 'batch'> : never;

/**
 * Main-thread side of the single writer, which runs in a worker thread. Appends travel in groups
 * (at most PIPELINE_GROUP, or whatever one event-loop turn made); each promise settles once its
 * rows are committed and fsynced.
 */
export class WorkerWriter {
    private readonly worker: Worker;
    private readonly waiting = new Map<number, Pending>();
    private nextBatch = 1;
    private queued: { event: NewEvent; pending: Pending }[] = [];
    private closed = false;
    private failure: Error | undefined;

    constructor(file: string) {
        this.worker = startSiblingWorker(import.meta.url, 'writer-worker', { workerData: { file } });
        this.worker.on('message', (reply: WriterReply) => this.settle(reply));
        this.worker.on('error', (error) => this.fail(error));
        this.worker.on('exit', (code) => {
            if (!this.closed) this.fail(new Error(`storage writer stopped (exit code ${code})`));
        });
    }

    /** Whether the writer is running; false after a crash of the worker. */
    get healthy(): boolean {
        return !this.failure && !this.closed;
    }

    /** Durably stores one event. Rejects if the write fails; the caller must not report success then. */
    append(event: NewEvent): Promise<void> {
        if (this.failure) return Promise.reject(this.failure);
        return new Promise<void>((resolve, reject) => {
            if (this.queued.length === 0) setImmediate(() => this.sendQueued());
            this.queued.push({ event: compactBody(event), pending: { resolve: (r) => (r.error ? reject(new Error(r.error)) : resolve()), reject } });
            // Hand over in small groups so the writer commits while this thread is still parsing.
            if (this.queued.length >= PIPELINE_GROUP) this.sendQueued();
        });
    }

    /** Sends any other request and resolves with the worker's reply. */
    request(req: WithoutBatch<WriterRequest>): Promise<WriterReply> {
        if (this.failure) return Promise.reject(this.failure);
        return new Promise<WriterReply>((resolve, reject) => {
            const batch = this.nextBatch++;
            this.waiting.set(batch, {
                resolve: (r) => (r.error ? reject(new Error(r.error)) : resolve(r)),
                reject,
            });
            this.worker.postMessage({ ...req, batch });
        });
    }

    /** Commits what is queued, then stops the worker after a WAL checkpoint. */
    async close(): Promise<void> {
        if (this.closed) return;
        this.sendQueued();
        const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
        await this.request({ op: 'close' }).catch(() => undefined);
        this.closed = true;
        await exited;
    }

    private sendQueued(): void {
        const queued = this.queued;
        if (queued.length === 0) return;
        this.queued = [];
        const batch = this.nextBatch++;
        const events = queued.map((q) => q.event);
        this.waiting.set(batch, {
            resolve: (reply) => queued.forEach((q) => q.pending.resolve(reply)),
            reject: (error) => queued.forEach((q) => q.pending.reject(error)),
        });
        this.worker.postMessage({ op: 'append', batch, events } satisfies WriterRequest);
    }

    private settle(reply: WriterReply): void {
        const pending = this.waiting.get(reply.batch);
        this.waiting.delete(reply.batch);
        pending?.resolve(reply);
    }

    private fail(error: Error): void {
        this.failure = error;
        for (const pending of this.waiting.values()) pending.reject(error);
        this.waiting.clear();
        for (const q of this.queued) q.pending.reject(error);
        this.queued = [];
    }
}
