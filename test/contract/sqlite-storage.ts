import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/log.js';
import { openActorStorage } from '../../src/storage/apify/actor-storage.js';
import { Deadlines } from '../../src/storage/apify/deadline.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/roles.js';
import type { OpenedStorage } from './contract.js';

/**
 * SQLite mode as the service opens it (storage/open-storage.ts): the embedded store for events, and
 * for webhooks and payloads the local key-value store and payload folder of the actor's storage in
 * the same folder, which the contract holds to the same roles. One query worker: the contract is
 * not a load test.
 */
async function sqliteMode(dir: string): Promise<Storage> {
    const actor = await openActorStorage(false, 'contract', dir, silentLogger, systemClock, new Deadlines());
    return openStorage({ database: undefined, storageDir: dir, sqlite: { queryWorkers: 1 }, actor, log: silentLogger });
}

/** A fresh SQLite storage in a temp folder, with the local webhook and payload stores; `reopen` opens the same folder again. */
export async function openSqliteForContract(): Promise<OpenedStorage> {
    const dir = await mkdtemp(join(tmpdir(), 'whd-contract-'));
    const open = (): Promise<Storage> => sqliteMode(dir);
    return {
        storage: await open(),
        reopen: open,
        cleanup: () => rm(dir, { recursive: true, force: true }),
    };
}
