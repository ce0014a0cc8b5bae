import type { Logger } from '../../lib/log.js';
import type { Metrics } from '../../lib/metrics.js';
import type { EventStore } from '../event-store.js';
import type { LogEntry } from '../types.js';
import type { DatasetSink } from './dataset-sink.js';

/** Events per push. */
export const EXPORT_BATCH = 500;
/** While senders are active: smaller batches with pauses, so export never stalls capture for long. */
const BUSY_BATCH = 100;
const BUSY_PAUSE_MS = 1000;

/**
 * Follows the outbox into the actor's dataset: reads committed events in order, pushes them,
 * then advances the watermark (with the sink's position, in one commit). A crash between push and
 * watermark repeats at most one batch. While events keep arriving it paces itself, so capture
 * keeps the CPU; when senders pause it catches up at full speed.
 */
export class DatasetExporter {
    private timer: NodeJS.Timeout | undefined;
    private stopped = true;
    private running: Promise<void> | undefined;
    private lastSeenIngest = 0;

    constructor(private readonly dataset: DatasetSink, private readonly store: EventStore, private readonly metrics: Metrics, private readonly log: Logger) {}

    /** Exports in the background: batch after batch while there is a backlog, else every `intervalMs`. */
    start(intervalMs: number): void {
        this.stopped = false;
        const tick = async (): Promise<void> => {
            const busy = this.metrics.ingestTotal !== this.lastSeenIngest;
            this.lastSeenIngest = this.metrics.ingestTotal;
            const limit = busy ? BUSY_BATCH : EXPORT_BATCH;
            const moved = await this.flushOnce(limit);
            if (this.stopped) return;
            this.timer = setTimeout(() => void tick(), moved < limit ? intervalMs : busy ? BUSY_PAUSE_MS : 0);
            this.timer.unref();
        };
        this.timer = setTimeout(() => void tick(), intervalMs);
        this.timer.unref();
    }

    /** Exports until the outbox is empty or `budgetMs` has passed. */
    async drain(budgetMs: number): Promise<void> {
        const deadline = Date.now() + budgetMs;
        while (Date.now() < deadline) {
            const moved = await this.flushOnce(EXPORT_BATCH);
            if (moved === 0) return;
        }
    }

    /** Stops the timer and waits for a running export. */
    async stop(): Promise<void> {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
    }

    private async flushOnce(limit: number): Promise<number> {
        if (this.running) {
            await this.running;
        }
        let moved = 0;
        this.running = (async () => {
            try {
                const batch = this.store.readOutbox(limit);
                if (batch.length === 0) return;
                await this.dataset.push(batch.map((b) => datasetItem(b.entry, b.rawText)));
                await this.store.markExported(batch[batch.length - 1]!.seq, this.dataset.position?.());
                moved = batch.length;
                this.metrics.datasetExported += moved;
                this.metrics.lastDatasetFlushAt = new Date().toISOString();
                this.metrics.lastDatasetFlushError = null;
            } catch (error) {
                this.metrics.lastDatasetFlushError = String(error);
                this.log.warn('dataset export failed; will retry', { error: String(error) });
            }
        })();
        await this.running;
        this.running = undefined;
        return moved;
    }
}

/**
 * The dataset item of an event: the entry as GET /logs/:logId returns it. When a JSON body's bytes
 * differ from its compact form (pretty-printed, say), `bodyText` keeps them, so a restore is exact.
 */
export function datasetItem(entry: LogEntry, rawText: string | undefined): Record<string, unknown> {
    const item: Record<string, unknown> = { ...entry };
    if (rawText !== undefined && typeof entry.body === 'object' && entry.body !== null && JSON.stringify(entry.body) !== rawText) item.bodyText = rawText;
    return item;
}
