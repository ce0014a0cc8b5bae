import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { LogsPage, LogsQuery } from '../../src/storage/query-types.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { QueryPool, type QueryPoolOptions } from '../../src/storage/sqlite/query-pool.js';
import { runLogsQuery } from '../../src/storage/sqlite/query.js';
import { prepareReader } from '../../src/storage/sqlite/schema.js';
import type { NewEvent } from '../../src/storage/types.js';

/** A real store with a two-worker pool that splits, a pool of one, and a read-only connection. */
export interface PoolFixture {
    store: SqliteEventStore;
    db: Database.Database;
    split: QueryPool;
    single: QueryPool;
    /** Runs `q` on the split pool, the pool of one and in-thread; asserts all three agree. */
    same(q: LogsQuery, label: string): Promise<LogsPage>;
    close(): Promise<void>;
}

/** Imports `events` through the storage layer into a temp store and opens both pools on it. */
export async function openPoolFixture(prefix: string, events: NewEvent[], splitOptions: QueryPoolOptions): Promise<PoolFixture> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    const file = join(dir, 'events.sqlite');
    const store = await SqliteEventStore.open({ file, queryWorkers: 0 });
    await store.importEvents(events);
    const db = new Database(file, { readonly: true });
    prepareReader(db);
    const split = new QueryPool(file, 2, splitOptions);
    const single = new QueryPool(file, 1);
    return {
        store,
        db,
        split,
        single,
        same: async (q, label) => {
            const inThread = runLogsQuery(db, q);
            const [a, b] = await Promise.all([split.run(q), single.run(q)]);
            assert.deepEqual(a, inThread, `${label}: split pool vs in-thread`);
            assert.deepEqual(b, inThread, `${label}: pool of one vs in-thread`);
            return a;
        },
        close: async () => {
            db.close();
            await Promise.all([split.close(), single.close(), store.close()]);
            await rm(dir, { recursive: true, force: true });
        },
    };
}
