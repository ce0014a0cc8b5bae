import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '@crawlee/memory-storage';
import { Configuration, KeyValueStore } from 'apify';
import { silentLogger } from '../../src/lib/log.js';
import { openLocalPayloads } from '../../src/storage/blob/local-payloads.js';
import { KvWebhookStore } from '../../src/storage/apify/webhook-registry.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import type { Storage } from '../../src/storage/roles.js';
import type { OpenedStorage } from './contract.js';

// Until the seam lands an opener of its own, the SQLite backend's roles are its EventStore's
// methods, awaited: the contract holds the store to the role interfaces, not to this wrapper.

/** Every role of a SqliteEventStore on `file`. */
async function sqliteStorage(file: string): Promise<Storage> {
    const s = await SqliteEventStore.open({ file, queryWorkers: 1 });
    return {
        backend: 'sqlite',
        events: {
            append: (e) => s.append(e),
            importEvents: (e) => s.importEvents(e),
            getEntry: async (id) => s.getEntry(id),
            webhookOf: async (id) => s.webhookOf(id),
            idAtTimestamp: async (w, ts) => s.idAtTimestamp(w, ts),
            query: (q, signal) => s.query(q, signal),
            recordReplay: (id, r) => s.recordReplay(id, r),
            deleteEvents: (ids) => s.deleteEvents(ids),
            addTombstones: (ids) => s.addTombstones(ids),
        },
        bodies: { getBody: async (id) => s.getBody(id) },
        outbox: {
            readOutbox: async (limit, maxBytes, afterSeq) => s.readOutbox(limit, maxBytes, afterSeq),
            getExportRecord: async (id) => s.getExportRecord(id),
            markExported: (seq, pos) => s.markExported(seq, pos),
        },
        forwards: {
            readForwardBacklog: async (after, limit) => s.readForwardBacklog(after, limit),
            forwardSource: async (id) => s.forwardSource(id),
            recordForwards: (rows) => s.recordForwards(rows),
        },
        feed: {
            entriesAfter: async (id, limit, bodyLimit) => s.entriesAfter(id, limit, bodyLimit),
            onForeignEvents: () => () => undefined,
        },
        meta: { getMeta: async (k) => s.getMeta(k), setMeta: (k, v) => s.setMeta(k, v) },
        health: {
            backend: 'sqlite',
            stats: async () => s.stats(),
            queryStats: () => s.queryStats(),
            healthy: () => s.healthy(),
            problem: () => (s.healthy() ? undefined : 'the SQLite writer failed'),
            reclaimSpace: (pages) => s.reclaimSpace(pages),
        },
        close: () => s.close(),
    };
}

/**
 * In SQLite mode webhooks and payloads are not in the database: the local key-value store and the
 * payload folder keep them (as compose.ts opens them). The contract holds those to the same roles.
 */
async function withLocalStores(storage: Storage, dir: string): Promise<Storage> {
    const blobs = await openLocalPayloads(dir, silentLogger);
    const config = new Configuration({ storageClient: new MemoryStorage({ localDataDirectory: dir, persistStorage: true }), purgeOnStart: false });
    const webhooks = new KvWebhookStore(await KeyValueStore.open(undefined, { config }));
    return { ...storage, webhooks, blobs };
}

/** A fresh SQLite storage in a temp folder, with the local webhook and payload stores; `reopen` opens the same folder again. */
export async function openSqliteForContract(): Promise<OpenedStorage> {
    const dir = await mkdtemp(join(tmpdir(), 'whd-contract-'));
    const file = join(dir, 'events.sqlite');
    const open = async (): Promise<Storage> => withLocalStores(await sqliteStorage(file), dir);
    return {
        storage: await open(),
        reopen: open,
        cleanup: () => rm(dir, { recursive: true, force: true }),
    };
}
