import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStorage } from '@crawlee/memory-storage';
import { Configuration, KeyValueStore } from 'apify';
import { afterEach, beforeEach, describe } from 'vitest';
import { KvReplayJobStore } from '../../src/storage/apify/kv-replay-jobs.js';
import { replayJobCases } from './cases-replay-jobs.js';

// The platform without a database keeps jobs in the named key-value store (storage/embedded-bundle.ts).
// Here a local one stands in for it; every store on it is a run of its own, with claims shortened to
// a fraction of a second.
const TIMING = { leaseMs: 400, confirmMs: 20 };

describe('storage contract: key-value store (platform without a database)', () => {
    let dir: string;
    let kvs: KeyValueStore;
    let current: KvReplayJobStore;
    const open = (): KvReplayJobStore => new KvReplayJobStore(kvs, undefined, TIMING);
    beforeEach(async () => {
        dir = await mkdtemp(join(tmpdir(), 'whd-kv-jobs-'));
        const config = new Configuration({ storageClient: new MemoryStorage({ localDataDirectory: dir, persistStorage: true }), purgeOnStart: false });
        kvs = await KeyValueStore.open(`jobs-${Date.now()}`, { config });
        current = open();
    });
    afterEach(async () => {
        await rm(dir, { recursive: true, force: true });
    });
    replayJobCases({
        shared: true,
        jobs: () => current,
        peer: async () => open(),
        // A run that died: its claims lapse with their lease.
        reopen: async () => (current = open()),
    });
});
