import type { DatasetSink } from './dataset-sink.js';

/**
 * The platform's two datasets behind one sink. `history` is the named dataset every run of the
 * actor shares: it is what a new run or a fresh container restores from. `run` is the run's own
 * default dataset, what the console shows for that run. A batch counts as exported only when both
 * took it; a retry after a partial failure can repeat items, which a restore skips by id.
 */
export class MirroredDatasetSink implements DatasetSink {
    constructor(private readonly history: DatasetSink, private readonly run: DatasetSink) {}

    async push(items: Record<string, unknown>[]): Promise<void> {
        // Side by side: each dataset still gets the batches in order, and the export pays one round trip.
        await Promise.all([this.history.push(items), this.run.push(items)]);
    }

    read(offset: number, limit: number): Promise<Record<string, unknown>[]> {
        return this.history.read(offset, limit);
    }
}
