import type { Logger } from '../../lib/log.js';
import type { Metrics } from '../../lib/metrics.js';
import type { BlobStore } from '../blob-store.js';
import type { BodyReader, ExportOutbox, OutboxItem } from '../roles.js';
import type { LogEntry } from '../types.js';
import { datasetItem, fitsDataset, minimalItem, reducedItem, type BodyReference } from './dataset-item.js';
import type { DatasetSink } from './dataset-sink.js';
import { bodyReference } from './body-reference.js';
import { exponential } from '../../lib/backoff.js';


/**
 * How long an idle exporter waits before it looks at the outbox again (a local read; no request
 * while the outbox is empty). Other runs see a capture once it is exported and their follower's
 * next round has run (dataset-follow.ts), so this wait is part of that lag.
 */
export const EXPORT_IDLE_MS = 500;
/** Events per push. */
export const EXPORT_BATCH = 500;
/** Stored bytes (bodies and envelopes) read per batch: 500 bodies of 5 MB never load at once. */
export const EXPORT_BATCH_BYTES = 8 * 1024 * 1024;
/**
 * While senders are active: full batches (bounded by count and bytes, like any other), at most one
 * push per BUSY_PAUSE_MS, so the export yields the CPU to capture between pushes and stays far
 * under the API's per-dataset request rate. That is up to 2,500 small events/s, not a fixed
 * 100/s: at a sustained 500/s the backlog stays bounded (bench/README.md, platform export).
 */
const BUSY_PAUSE_MS = 200;
/**
 * Outbox rows read and converted at a time. A batch is built slice by slice, with a turn of the
 * event loop between slices, so the export never holds the capture thread for long: reading and
 * converting 500 rows at once held it ~15–30 ms every push, which was most of the live stream's p99
 * at 1,000 events/s (bench/README.md, live stream).
 */
export const EXPORT_SLICE = 50;
/** Failed attempts of one batch before it is pushed item by item, to find the item at fault. */
export const ISOLATE_AFTER = 3;

const BACKOFF = exponential(Infinity, 1000, 60_000);

/** Wait before the next attempt after `failures` consecutive failures: 1 s doubling to 60 s. */
export function retryDelayMs(failures: number): number {
    return BACKOFF.backoffMs(Math.max(1, failures));
}

/** What the exporter needs besides the dataset and the store. */
export interface ExporterOptions {
    /** Where a body the dataset cannot take is kept, so its reference still resolves after a restore. */
    blobs: BlobStore;
    /** The public base URL, for `payloadUrl`. */
    baseUrl: () => string;
    /** Stored bytes read per batch, from the memory budget; EXPORT_BATCH_BYTES when absent. */
    batchBytes?: number;
}

/** The outcome of one export attempt. */
export interface FlushResult {
    moved: number;
    failed: boolean;
}

/**
 * Follows the outbox into the actor's dataset: reads committed events in order, pushes them,
 * then advances the watermark (with the sink's position, in one commit). A crash between push and
 * watermark repeats at most one batch. While events keep arriving it paces itself, so capture
 * keeps the CPU; when senders pause it catches up at full speed.
 *
 * No event can stop it: an item the dataset cannot take whole goes with its body replaced by a
 * reference; a failed push is retried with backoff, and a batch that keeps failing is pushed item
 * by item, where a refused item goes in its minimal form.
 */
export class DatasetExporter {
    private timer: NodeJS.Timeout | undefined;
    private stopped = true;
    private running: Promise<FlushResult> | undefined;
    private lastSeenIngest = 0;
    private failures = 0;
    private failedHead: number | undefined;
    private hurried = false;
    private tick: (() => Promise<void>) | undefined;
    private ticking = false;
    /** Whether the sink's starting position is committed (see commitStartPosition). */
    private startCommitted = false;
    /**
     * Outbox positions the dataset took whose watermark is not committed yet (the store failed
     * between the two): later attempts commit them without pushing those items again, so a database
     * outage does not repeat a batch in the append-only dataset. Positions, not a bound: with a
     * shared database a later batch may hold rows of a dead instance between them, which must still
     * go. In memory only: a crash in that window still repeats the batch (at least once).
     */
    private readonly pushedSeqs = new Set<number>();

    constructor(private readonly dataset: DatasetSink, private readonly store: { outbox: ExportOutbox; bodies: BodyReader }, private readonly metrics: Metrics, private readonly log: Logger, private readonly options: ExporterOptions) {}

    /** Exports in the background: batch after batch while there is a backlog, else every `intervalMs`. */
    start(intervalMs: number): void {
        this.stopped = false;
        const tick = async (): Promise<void> => {
            const busy = !this.hurried && this.metrics.ingestTotal !== this.lastSeenIngest;
            this.lastSeenIngest = this.metrics.ingestTotal;
            this.ticking = true;
            const { moved, failed } = await this.flushOnce(EXPORT_BATCH);
            this.ticking = false;
            if (this.stopped) return;
            const delay = failed ? retryDelayMs(this.failures) : moved === 0 ? intervalMs : busy && !this.hurried ? BUSY_PAUSE_MS : 0;
            this.timer = setTimeout(() => void tick(), delay);
            this.timer.unref();
        };
        this.tick = tick;
        this.timer = setTimeout(() => void tick(), intervalMs);
        this.timer.unref();
    }

    /** The container is going away soon: stop pacing for capture and export the backlog at once. */
    hurry(): void {
        this.hurried = true;
        // A tick in progress reschedules itself without pacing; else the next one starts now.
        if (this.stopped || !this.tick || this.ticking) return;
        clearTimeout(this.timer);
        void this.tick();
    }

    /** Exports until the outbox is empty, an attempt fails, or `budgetMs` has passed. */
    async drain(budgetMs: number): Promise<void> {
        const deadline = Date.now() + budgetMs;
        while (Date.now() < deadline) {
            const { moved } = await this.flushOnce(EXPORT_BATCH);
            if (moved === 0) return;
        }
    }

    /** Stops the timer and waits for a running export. */
    async stop(): Promise<void> {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
    }

    /** One attempt: the oldest batch of the outbox (bounded by count and bytes) into the dataset. */
    async flushOnce(limit: number): Promise<FlushResult> {
        while (this.running) await this.running;
        this.running = this.attempt(limit);
        try {
            return await this.running;
        } finally {
            this.running = undefined;
        }
    }

    private async attempt(limit: number): Promise<FlushResult> {
        let moved = 0;
        try {
            const { batch, items } = await this.collect(limit);
            if (batch.length === 0) return { moved, failed: false };
            if (batch[0]!.seq !== this.failedHead) this.failures = 0;
            this.failedHead = batch[0]!.seq;
            if (!this.startCommitted) await this.commitStartPosition();
            if (this.failures >= ISOLATE_AFTER) {
                for (let i = 0; i < batch.length; i++) {
                    await this.pushAlone(batch[i]!, items[i]!);
                    moved++;
                }
            } else {
                const fresh = items.filter((_, i) => !this.pushedSeqs.has(batch[i]!.seq));
                if (fresh.length > 0) await this.dataset.push(fresh);
                for (const b of batch) this.pushedSeqs.add(b.seq);
                await this.exported(batch[batch.length - 1]!.seq);
                moved = batch.length;
            }
            this.failures = 0;
            this.failedHead = undefined;
            this.metrics.lastDatasetFlushAt = new Date().toISOString();
            this.metrics.lastDatasetFlushError = null;
            return { moved, failed: false };
        } catch (error) {
            this.failures++;
            this.metrics.lastDatasetFlushError = String(error);
            this.log.warn('dataset export failed; will retry', { error: String(error), attempt: this.failures, retryInMs: retryDelayMs(this.failures) });
            return { moved, failed: true };
        } finally {
            this.metrics.datasetExported += moved;
        }
    }

    /** The next batch (at most `limit` events and the batch bytes of the memory budget), read and converted in slices. */
    private async collect(limit: number): Promise<{ batch: OutboxItem[]; items: Record<string, unknown>[] }> {
        const batch: OutboxItem[] = [];
        const items: Record<string, unknown>[] = [];
        let budget = this.options.batchBytes ?? EXPORT_BATCH_BYTES;
        while (batch.length < limit) {
            const want = Math.min(EXPORT_SLICE, limit - batch.length);
            const slice = await this.store.outbox.readOutbox(want, budget, batch.at(-1)?.seq);
            for (const b of slice) {
                batch.push(b);
                budget -= b.bytes;
                items.push(await this.exportable(b));
            }
            // Fewer than asked: the outbox or the byte budget is spent.
            if (slice.length < want) break;
            await new Promise((resolve) => setImmediate(resolve));
        }
        return { batch, items };
    }

    /**
     * Commits where the sink stands before this run's first push. A new storage has no committed
     * position until its first batch is committed, so a kill inside that first push left item files
     * the next start could not tell from committed ones: it kept them and pushed the batch again.
     * Watermark 0 deletes no outbox row: only the position is committed.
     */
    private async commitStartPosition(): Promise<void> {
        const position = this.dataset.position?.();
        if (position !== undefined) await this.store.outbox.markExported(0, position);
        this.startCommitted = true;
    }

    /** Pushes one item; when the dataset refuses it, its minimal form. Commits the watermark after it. */
    private async pushAlone(b: OutboxItem, item: Record<string, unknown>): Promise<void> {
        if (!this.pushedSeqs.has(b.seq)) {
            try {
                await this.dataset.push([item]);
            } catch (error) {
                // If even the minimal form fails, the dataset itself is failing: that throws, and backs off.
                await this.dataset.push([minimalItem(item, await this.reference(b.entry), `refused by the dataset: ${String(error)}`)]);
                this.log.warn('dataset refused an event; exported its minimal form', { id: b.entry.id, error: String(error) });
            }
            this.pushedSeqs.add(b.seq);
        }
        await this.exported(b.seq);
    }

    /** Commits the watermark `seq` once the dataset took every item up to it; what it covers is no longer remembered. */
    private async exported(seq: number): Promise<void> {
        await this.store.outbox.markExported(seq, this.dataset.position?.());
        for (const pushed of this.pushedSeqs) if (pushed <= seq) this.pushedSeqs.delete(pushed);
    }

    /** The item as it can go to the dataset: whole, else with its body replaced by a reference. */
    private async exportable(b: OutboxItem): Promise<Record<string, unknown>> {
        const item = datasetItem(b.entry, b.rawText);
        if (fitsDataset(item)) return item;
        const reduced = reducedItem(item, await this.reference(b.entry));
        this.log.warn('event too large or too deep for one dataset item; exported with a body reference', { id: b.entry.id, size: b.entry.size });
        return fitsDataset(reduced) ? reduced : minimalItem(item, reduced.body as BodyReference, 'the event does not fit one dataset item');
    }

    private reference(entry: LogEntry): Promise<BodyReference> {
        return bodyReference(entry, this.store.bodies, this.options.blobs, this.options.baseUrl());
    }
}
