import type { Storage } from '../roles.js';
import { SqliteEventStore, type SqliteStoreOptions } from './event-store.js';

export type { SqliteStoreOptions } from './event-store.js';
export type { QueryPoolOptions } from './query-pool.js';

/**
 * Opens the embedded backend: one SqliteEventStore plays every role. Webhooks and large payloads
 * stay with the actor's key-value store and local files, so `webhooks` and `blobs` are absent.
 */
export async function openSqliteStorage(options: SqliteStoreOptions): Promise<Storage> {
    const store = await SqliteEventStore.open(options);
    return {
        backend: 'sqlite',
        events: store,
        bodies: store,
        outbox: store,
        forwards: store,
        feed: store,
        meta: store,
        health: store,
        replayJobs: store.replayJobs,
        close: () => store.close(),
    };
}
