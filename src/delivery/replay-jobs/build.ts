import type { Filter } from '../../filters/types.js';
import type { CursorPosition, LogsQuery } from '../../storage/query-types.js';
import { BEFORE_ALL, type ReplayJobItem, type ReplayJobSpec, type ReplayJobStore } from '../../storage/replay-job-store.js';
import type { EventLog } from '../../storage/roles.js';
import type { LogSummary } from '../../storage/types.js';

/** Ids read (and written) per step: a set of a million is never held whole. */
const PAGE = 2000;
/** A dry run's sample. */
const SAMPLE = 5;

/** What building a job's set needs. */
export interface BuildDeps {
    store: ReplayJobStore;
    events: Pick<EventLog, 'query'>;
}

const newestFirst = (filters: Filter[], limit: number, cursor: CursorPosition | null): LogsQuery => ({ filters, sort: [{ field: 'timestamp', dir: 'desc' }], limit, offset: 0, cursor });

/** How many captures match now, and the first few in sending order. */
export async function countAndSample(events: BuildDeps['events'], filters: Filter[], order: ReplayJobSpec['order']): Promise<{ matched: number; sample: LogSummary[] }> {
    const counted = await events.query({ filters, sort: [{ field: 'timestamp', dir: 'desc' }], limit: 1, offset: 0 });
    const sample = await events.query({ filters, sort: [{ field: 'timestamp', dir: order === 'oldest' ? 'asc' : 'desc' }], limit: SAMPLE, offset: 0 });
    return { matched: counted.total ?? 0, sample: sample.items };
}

/**
 * Writes job `id`'s set: the captures matching `filters` now, in batches. The query pages newest
 * first in cursor mode, so a capture that arrives meanwhile sorts before the cursor and is never
 * taken; the k-th newest gets position k (order `newest`) or -k (`oldest`: the oldest then comes
 * first in position order). Resolves with how many there are.
 */
export async function writeMatchingSet(deps: BuildDeps, id: string, filters: Filter[], order: ReplayJobSpec['order']): Promise<number> {
    const sign = order === 'oldest' ? -1 : 1;
    let cursor: CursorPosition | null = null;
    let total = 0;
    for (;;) {
        const page = await deps.events.query(newestFirst(filters, PAGE, cursor));
        const items: ReplayJobItem[] = page.items.map((item, i) => ({ position: sign * (total + i + 1), eventId: item.id }));
        if (items.length > 0) await deps.store.addItems(id, items);
        total += items.length;
        if (!page.next || page.items.length === 0) return total;
        cursor = page.next;
    }
}

/** Writes job `id`'s set: the failed items of job `source`, in its order. Resolves with how many there are. */
export async function writeFailedSet(deps: BuildDeps, id: string, source: string): Promise<number> {
    let after = BEFORE_ALL;
    let total = 0;
    for (;;) {
        const failed = await deps.store.failedItems(source, after, PAGE);
        if (failed.length === 0) return total;
        await deps.store.addItems(id, failed.map((item, i) => ({ position: total + i + 1, eventId: item.eventId })));
        total += failed.length;
        after = failed.at(-1)!.position;
    }
}
