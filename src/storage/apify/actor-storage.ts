import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { MemoryStorage } from '@crawlee/memory-storage';
import { Actor, Configuration, KeyValueStore } from 'apify';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';
import type { BlobStore } from '../blob-store.js';
import { openLocalPayloads } from '../blob/local-payloads.js';
import { EXPORT_BATCH } from './dataset-export.js';
import { ApifyDatasetSink, LocalDatasetSink, type DatasetSink } from './dataset-sink.js';
import { installDeadlines, type Deadlines } from './deadline.js';
import { KvBlobStore } from './kv-blob-store.js';
import { MirroredDatasetSink } from './mirrored-dataset-sink.js';

/** The actor's key-value store, input and dataset, and where offloaded payloads go without a database. */
export interface ActorStorage {
    kvs: KeyValueStore;
    readInput(): Promise<unknown>;
    /** The dataset; locally it resumes at the position committed with the export watermark. */
    openDataset(committedPosition: string | undefined): Promise<DatasetSink>;
    /** Where offloaded payloads go. */
    blobs: BlobStore;
}

/**
 * The actor's default key-value store and dataset. On the platform they come from the initialized
 * SDK; locally from our storage folder, never purged, so data survives restarts.
 */
export async function openActorStorage(onPlatform: boolean, scope: string, storageDir: string, log: Logger, clock: Clock, deadlines: Deadlines): Promise<ActorStorage> {
    if (onPlatform) {
        // Every call below can be aborted at its deadline (storage/apify/deadline.ts).
        installDeadlines(Actor.apifyClient);
        // Named storages outlive the run: a URL handed out by one Standby run keeps working in the next,
        // and a new run (or a fresh container after a migration) restores its history from them.
        const name = platformStorageName(scope);
        const kvs = await Actor.openKeyValueStore(name);
        const openDataset = async (): Promise<DatasetSink> => new MirroredDatasetSink(new ApifyDatasetSink(await Actor.openDataset(name), deadlines), new ApifyDatasetSink(await Actor.openDataset(), deadlines));
        const raw = { open: async (key: string) => (await Actor.apifyClient.keyValueStore(kvs.id).getRecord(key, { stream: true }))?.value as Readable | undefined };
        return { kvs, readInput: () => Actor.getInput(), openDataset, blobs: new KvBlobStore(kvs, raw, join(storageDir, 'payload-spool'), clock, undefined, deadlines) };
    }
    // Before the default store opens: its local client reads every file in it (see local-payloads.ts).
    const blobs = await openLocalPayloads(storageDir, log);
    const config = new Configuration({ storageClient: new MemoryStorage({ localDataDirectory: storageDir, persistStorage: true }), purgeOnStart: false });
    const kvs = await KeyValueStore.open(undefined, { config });
    const openDataset = async (position: string | undefined): Promise<DatasetSink> =>
        new LocalDatasetSink(join(storageDir, 'datasets', 'default'), position === undefined ? undefined : Number(position), EXPORT_BATCH, (file) => log.warn('skipping an unreadable dataset item', { file }));
    return { kvs, readInput: () => kvs.getValue('INPUT'), openDataset, blobs };
}

/** The name of the actor's (or task's) shared storages: DNS-safe, as the platform requires. */
export function platformStorageName(scope: string): string {
    return `webhook-debugger-${scope}`.replace(/[^a-zA-Z0-9-]+/g, '-').slice(0, 63).replace(/-+$/, '');
}
