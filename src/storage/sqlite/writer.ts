import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { startSiblingWorker } from '../../lib/worker-url.js';
import type { SyncMode } from '../event-store.js';
import type { NewEvent } from '../types.js';
import { encodeEvent, type EventRecord } from './rows.js';
import type { WriterInit, WriterReply, WriterRequest } from './writer-protocol.js';

type Pending = { resolve: (reply: WriterReply) => void; reject: (error: Error) => void };
type WithoutBatch<T> = T extends unknown ? Omit<T, 'batch'> : never;

/**
 * Main-thread side of the single writer, which runs in a worker thread. Each append promise
 * settles once its row is committed and fsynced. The appends of one event-loop turn go over as
 * one message at its end; the writer commits every message that arrived during its previous
 * commit in one transaction. (Holding appends back until a commit ends, to send fewer and larger
 * messages, measured 4–7% slower: they then wait for the reply as well as for the commit.)
 *
 * Replies come back on a port of their own, which `append` also polls synchronously: under load
 * this thread is rarely idle, and a reply that waited for the event loop to come round would hold
 * a whole group of answers back for a burst of request parsing.
 */
export class WorkerWriter {
    private readonly worker: Worker;
    private readonly replies: MessagePort;
    private readonly waiting = new Map<number, Pending>();
    private nextBatch = 1;
    private queued: { record: EventRecord; event: NewEvent; pending: Pending }[] = [];
    private sendScheduled = false;
    private closed = false;
    private failure: Error | undefined;
    /** The highest position of an appended event whose commit this thread has been told of. */
    committedSeq = 0;

    constructor(file: string, sync: SyncMode) {
        const { port1, port2 } = new MessageChannel();
        this.replies = port1;
        this.worker = startSiblingWorker(import.meta.url, 'writer-worker', { workerData: { file, replies: port2, sync } satisfies WriterInit, transferList: [port2] });
        this.replies.on('message', (replies: WriterReply[]) => this.settleAll(replies));
        this.worker.on('error', (error) => this.fail(error));
        this.worker.on('exit', (code) => {
            // Replies travel apart from the exit notice: settle the ones posted before the worker ended.
            this.pollReplies();
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
        this.pollReplies();
        return new Promise<void>((resolve, reject) => {
            this.queued.push({ record: encodeEvent(event), event, pending: { resolve: (r) => (r.error ? reject(new Error(r.error)) : resolve()), reject } });
            if (!this.sendScheduled) {
                this.sendScheduled = true;
                setImmediate(() => {
                    this.sendScheduled = false;
                    this.sendQueued();
                });
            }
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
        this.replies.close();
    }

    /** Settles whatever replies have already arrived, without waiting for the event loop. */
    private pollReplies(): void {
        for (let m = receiveMessageOnPort(this.replies); m; m = receiveMessageOnPort(this.replies)) this.settleAll(m.message as WriterReply[]);
    }

    private sendQueued(): void {
        const queued = this.queued;
        if (queued.length === 0 || this.failure) return;
        this.queued = [];
        const batch = this.nextBatch++;
        const records = queued.map((q) => q.record);
        this.waiting.set(batch, {
            resolve: (reply) =>
                queued.forEach((q, i) => {
                    // A form the writer described is the event's before its append resolves (the live stream shows it).
                    const described = reply.forms?.[i];
                    if (described) {
                        q.event.form = described.form;
                        if (described.error !== undefined) q.event.formError = described.error;
                    }
                    q.pending.resolve(reply);
                }),
            reject: (error) => queued.forEach((q) => q.pending.reject(error)),
        });
        this.worker.postMessage({ op: 'append', batch, records } satisfies WriterRequest);
    }

    /** The replies of one commit arrive together, in one message. */
    private settleAll(replies: WriterReply[]): void {
        for (const reply of replies) this.settle(reply);
    }

    private settle(reply: WriterReply): void {
        if (reply.lastSeq !== undefined && reply.lastSeq > this.committedSeq) this.committedSeq = reply.lastSeq;
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
