import type { ApifyDatasetSink, DatasetSink } from './dataset-sink.js';
import type { DatasetPage, FollowableDataset } from './dataset-follow.js';

/**
 * The platform's two datasets behind one sink. `history` is the named dataset every run of the
 * actor shares: it is what a new run or a fresh container restores from, and what the runs alive
 * at once follow (dataset-follow.ts). `run` is the run's own default dataset, what the console
 * shows for that run. A batch counts as exported only when both took it; a retry after a partial
 * failure can repeat items, which a restore or a follower skips by id.
 */
export class MirroredDatasetSink implements FollowableDataset {
    private readonly listeners: ((items: readonly Record<string, unknown>[]) => void)[] = [];

    constructor(private readonly history: Pick<ApifyDatasetSink, 'push' | 'read' | 'list'>, private readonly run: DatasetSink) {}

    async push(items: Record<string, unknown>[]): Promise<void> {
        // Told before the push: a follower's listing may show the items before the push resolves.
        for (const listener of this.listeners) listener(items);
        // Side by side: each dataset still gets the batches in order, and the export pays one round trip.
        await Promise.all([this.history.push(items), this.run.push(items)]);
    }

    read(offset: number, limit: number): Promise<Record<string, unknown>[]> {
        return this.history.read(offset, limit);
    }

    list(offset: number, limit: number, fields?: string[]): Promise<DatasetPage> {
        return this.history.list(offset, limit, fields);
    }

    onPush(listener: (items: readonly Record<string, unknown>[]) => void): void {
        this.listeners.push(listener);
    }
}
