import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '@crawlee/memory-storage';
import { Configuration, KeyValueStore } from 'apify';
import { silentLogger } from '../../src/lib/log.js';
import { openLocalPayloads } from '../../src/storage/blob/local-payloads.js';
import { KvWebhookStore } from '../../src/storage/apify/webhook-registry.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { Storage } from '../../src/storage/roles.js';
import type { OpenedStorage } from './contract.js';

/** The SQLite backend as the service opens it (one query worker: the contract is not a load test). */
function sqliteStorage(file: string): Promise<Storage> {
    return openSqliteStorage({ file, queryWorkers: 1 });
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
