import type { Logger } from '../../lib/log.js';
import type { Metrics } from '../../lib/metrics.js';
import type { EventStore } from '../event-store.js';
import type { LogEntry } from '../types.js';
import type { DatasetSink } from './dataset-sink.js';

const BATCH = 500;

/**
 * Follows the outbox into the actor's dataset: reads committed events in order, pushes them,
 * then advances the watermark. A crash between push and watermark repeats at most one batch.
 */
export class DatasetExporter {
    private timer: NodeJS.Timeout | undefined;
    private stopped = true;
    private running: Promise<void> | undefined;

    constructor(private readonly dataset: DatasetSink, private readonly store: EventStore, private readonly metrics: Metrics, private readonly log: Logger) {}

    /** Exports in the background: batch after batch while there is a backlog, else every `intervalMs`. */
    start(intervalMs: number): void {
        this.stopped = false;
        const tick = async (): Promise<void> => {
            const moved = await this.flushOnce();
            if (this.stopped) return;
            this.timer = setTimeout(() => void tick(), moved === BATCH ? 0 : intervalMs);
            this.timer.unref();
        };
        this.timer = setTimeout(() => void tick(), intervalMs);
        this.timer.unref();
    }

    /** Exports until the outbox is empty or `budgetMs` has passed. */
    async drain(budgetMs: number): Promise<void> {
        const deadline = Date.now() + budgetMs;
        while (Date.now() < deadline) {
            const moved = await this.flushOnce();
            if (moved === 0) return;
        }
    }

    /** Stops the timer and waits for a running export. */
    async stop(): Promise<void> {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
    }

    private async flushOnce(): Promise<number> {
        if (this.running) {
            await this.running;
        }
        let moved = 0;
        this.running = (async () => {
            try {
                const batch = this.store.readOutbox(BATCH);
                if (batch.length === 0) return;
                await this.dataset.push(batch.map((b) => datasetItem(b.entry, b.rawText)));
                await this.store.markExported(batch[batch.length - 1]!.seq);
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
