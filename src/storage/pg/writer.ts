import type pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { BODY, encodeEvent, type EventRecord } from '../rows.js';
import type { NewEvent } from '../types.js';
import { insertEvents } from './insert.js';
import { isConnectionError, storeError } from './pool.js';

/** Bounds of one group commit. */
const GROUP_EVENTS = 500;
const GROUP_BYTES = 8 * 1024 * 1024;
/** Appends waiting at a commit's start that make it crowded, and how long a crowd is remembered. */
const CROWD = 8;
const CROWD_MEMORY_MS = 300;

interface Pending {
    record: EventRecord;
    bytes: number;
    resolve: () => void;
    reject: (error: unknown) => void;
}

/**
 * Group commit: appends queue while a commit runs; the next commit takes the whole queue (within
 * the bounds) in one transaction and answers every append of it after COMMIT. One commit at a time
 * per instance; other work that takes event positions (imports, backlog takeover) runs between
 * commits through `exclusive`, so `committedSeq` only ever covers answered appends.
 */
export class GroupWriter {
    private queue: Pending[] = [];
    private readonly tasks: (() => Promise<void>)[] = [];
    private running: Promise<void> | undefined;
    private closed = false;
    /** When a commit last took a crowd (CROWD appends or more had queued behind the one before). */
    private crowdedAt = -Infinity;
    /** Called after each group commit, with when its statement started (performance.now()). */
    onCommitted: (startedAt: number) => void = () => undefined;

    constructor(
        private readonly pool: pg.Pool,
        private readonly instanceId: string,
        private readonly log: Logger,
        /** The last position of this instance's own forwarding backlog whose append was answered. */
        public committedSeq: number,
        /** A commit lost its connection; `startedAt`: when its statement started (performance.now()). */
        private readonly onFailure: (error: unknown, startedAt: number) => void,
    ) {}

    /** Resolves once the event is committed; rejects with StoreUnavailableError while the database is away. */
    append(event: NewEvent): Promise<void> {
        if (this.closed) return Promise.reject(new Error('The store is closed'));
        const record = encodeEvent(event);
        return new Promise<void>((resolve, reject) => {
            this.queue.push({ record, bytes: record[BODY]?.byteLength ?? 0, resolve, reject });
            this.kick();
        });
    }

    /** Runs `fn` between group commits (one at a time with them). */
    exclusive<T>(fn: () => Promise<T>): Promise<T> {
        return new Promise<T>((resolve, reject) => {
            this.tasks.push(() => fn().then(resolve, reject));
            this.kick();
        });
    }

    /** Answers every queued append, then refuses new ones. */
    async close(): Promise<void> {
        this.closed = true;
        while (this.running) await this.running;
    }

    private kick(): void {
        if (this.running) return;
        this.running = this.drain().finally(() => {
            this.running = undefined;
            if (this.queue.length > 0 || this.tasks.length > 0) this.kick();
        });
    }

    private async drain(): Promise<void> {
        for (;;) {
            const task = this.tasks.shift();
            if (task) {
                await task();
                continue;
            }
            if (this.queue.length === 0) return;
            await this.commit(this.takeGroup());
        }
    }

    /** Whether appends queued behind commits within the last `ms`: the database is what ingest waits for. */
    crowded(ms = CROWD_MEMORY_MS): boolean {
        return performance.now() - this.crowdedAt < ms;
    }

    private takeGroup(): Pending[] {
        if (this.queue.length >= CROWD) this.crowdedAt = performance.now();
        let bytes = this.queue[0]!.bytes;
        let n = 1;
        while (n < this.queue.length && n < GROUP_EVENTS && bytes + this.queue[n]!.bytes <= GROUP_BYTES) bytes += this.queue[n++]!.bytes;
        return this.queue.splice(0, n);
    }

    private async commit(group: Pending[]): Promise<void> {
        const started = performance.now();
        try {
            // One statement: its own transaction, one round trip.
            const last = await insertEvents(this.pool, group.map((p) => p.record), this.instanceId, true);
            this.committedSeq = Math.max(this.committedSeq, last);
            for (const p of group) p.resolve();
            this.onCommitted(started);
        } catch (error) {
            if (isConnectionError(error) || group.length === 1) {
                if (isConnectionError(error)) this.onFailure(error, started);
                else this.log.warn('an event could not be stored', { error: String(error) });
                for (const p of group) p.reject(storeError(error));
                return;
            }
            // A statement error (a duplicate id, ...): each event alone, so one cannot fail its neighbours.
            for (const p of group) await this.commit([p]);
        }
    }
}
