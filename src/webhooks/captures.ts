import { setImmediate as turn, setTimeout as pause } from 'node:timers/promises';
import type { Logger } from '../lib/log.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { DeletionLog } from '../storage/deletion-log.js';
import type { EventLog, StoreHealth } from '../storage/roles.js';
import type { Filter } from '../filters/types.js';
import type { CursorPosition } from '../storage/query-types.js';

/** What deleting captures needs. */
export interface CaptureDeps {
    /** The roles deleting uses: the events, and the space they leave (given back to the file system). */
    storage: { events: Pick<EventLog, 'deleteEvents' | 'query'>; health: Pick<StoreHealth, 'reclaimSpace'> };
    blobs: BlobStore;
    log: Logger;
    deletions?: DeletionLog;
}

/**
 * Events per writer commit. The writer commits a deletion together with the appends that arrive
 * meanwhile, so a batch must stay short: 50 take ~1.6 ms of writer time (100: ~5 ms, 200: ~19 ms;
 * /tmp measurement in the report), so an append waits at most about that long for one.
 */
export const DELETE_BATCH = 50;
/**
 * The pause after each batch: the writer is left to the appends in between, and the WAL checkpoints
 * a deletion causes are spread out (100,000 captures take ~18 s; bench/bulk-delete.mjs).
 */
const PAUSE_MS = 5;
/** Ids read per query page while deleting. */
const PAGE = 2000;
/** Free pages given back per writer commit (4 KB each). */
const RECLAIM_PAGES = 512;

/** Deletes captures by id, in batches, with their payloads, and logs the ids. Resolves with how many existed. */
export async function deleteCapturesById(deps: CaptureDeps, ids: readonly string[]): Promise<number> {
    const deleted = await deleteBatches(deps, ids);
    if (deleted > 0) await deps.deletions?.record(ids);
    return deleted;
}

async function deleteBatches(deps: CaptureDeps, ids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += DELETE_BATCH) {
        const result = await deps.storage.events.deleteEvents(ids.slice(i, i + DELETE_BATCH));
        deleted += result.deleted;
        for (const key of result.blobKeys) await deps.blobs.delete(key).catch((error: unknown) => deps.log.warn('could not delete a payload', { key, error: String(error) }));
        // Capture goes first: the writer is left to the appends for a moment before the next batch.
        await pause(PAUSE_MS);
    }
    return deleted;
}

/**
 * Deletes every capture matching `filters` (those of GET /logs) when the call starts, newest first,
 * paging the ids through the query pool and deleting them in small writer commits; then gives the
 * freed space back in the background.
 */
export async function deleteMatching(deps: CaptureDeps, filters: Filter[]): Promise<number> {
    let cursor: CursorPosition | null = null;
    let deleted = 0;
    const all: string[] = [];
    for (;;) {
        const page = await deps.storage.events.query({ filters, sort: [{ field: 'timestamp', dir: 'desc' }], limit: PAGE, offset: 0, cursor });
        const ids = page.items.map((item) => item.id);
        deleted += await deleteBatches(deps, ids);
        all.push(...ids);
        if (!page.next || page.items.length === 0) break;
        cursor = page.next;
    }
    if (deleted > 0) {
        await deps.deletions?.record(all);
        reclaimSpace(deps);
    }
    return deleted;
}

const reclaiming = new WeakSet<object>();

/** Gives free pages back to the file system, a few at a time, until none are left (or none can be). */
export function reclaimSpace(deps: CaptureDeps): void {
    const space = deps.storage.health;
    if (reclaiming.has(space)) return;
    reclaiming.add(space);
    void (async () => {
        let left = Infinity;
        for (;;) {
            const now = await space.reclaimSpace(RECLAIM_PAGES);
            // A database created before auto_vacuum=INCREMENTAL keeps its free pages for new captures.
            if (now === 0 || now >= left) break;
            left = now;
            await turn();
        }
    })()
        .catch((error: unknown) => deps.log.warn('could not give free database pages back', { error: String(error) }))
        .finally(() => reclaiming.delete(space));
}
