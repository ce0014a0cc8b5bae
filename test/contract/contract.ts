import { afterEach, beforeEach, describe } from 'vitest';
import type { Storage } from '../../src/storage/roles.js';
import { deletionCases } from './cases-deletion.js';
import { eventLogCases } from './cases-events.js';
import { feedCases } from './cases-feed.js';
import { metaHealthCases } from './cases-meta.js';
import { outageCases, type Outage } from './cases-outage.js';
import { outboxCases } from './cases-outbox.js';
import { queryCases } from './cases-query.js';
import { replayJobCases } from './cases-replay-jobs.js';
import { storeCases } from './cases-stores.js';
import { writerCases } from './cases-writers.js';

/** A backend opened on fresh, empty data for one test. */
export interface OpenedStorage {
    storage: Storage;
    /** Opens another instance on the same data (a shared database), with an instance id of its own. */
    peer?: () => Promise<Storage>;
    /** Opens the same data again, once the first storage is closed. */
    reopen?: () => Promise<Storage>;
    /** Deletes the data (after every storage on it is closed). */
    cleanup: () => Promise<void>;
}

export type { Outage };

/** What the backend is: one process around its data, or several instances sharing it. */
export interface ContractOptions {
    /** Several instances may open the same data at once (`OpenedStorage.peer` is given). */
    shared?: boolean;
    /** The opened storage carries a WebhookStore (`storage.webhooks`). */
    webhooks?: boolean;
    /** The opened storage carries a BlobStore (`storage.blobs`). */
    blobs?: boolean;
    /** How to take the database away and back (a server of its own); absent for an embedded one. */
    outage?: Outage;
}

/** What a case sees: the storage under test and the way to more instances on its data. */
export interface ContractContext {
    readonly shared: boolean;
    /** The storage opened for this test. */
    storage(): Storage;
    /** Another instance on the same data (shared backends only); closed after the test. */
    peer(): Promise<Storage>;
    /** Closes `storage` now (it is not closed again after the test). */
    close(storage: Storage): Promise<void>;
    /** Closes the test's storage and opens its data again; the new one becomes `storage()`. */
    reopen(): Promise<Storage>;
}

/**
 * The storage contract, written once: every method of every role (src/storage/roles.ts), held to
 * the same behaviour on every backend. Each test gets its own fresh data from `open`.
 */
export function describeStorageContract(name: string, open: () => Promise<OpenedStorage>, options: ContractOptions = {}): void {
    describe(`storage contract: ${name}`, () => {
        let opened: OpenedStorage | undefined;
        let current: Storage | undefined;
        const live = new Set<Storage>();
        const ctx: ContractContext = {
            shared: options.shared ?? false,
            storage: () => {
                if (!current) throw new Error('no storage is open');
                return current;
            },
            peer: async () => {
                if (!opened?.peer) throw new Error(`${name} opens no peer instance`);
                const s = await opened.peer();
                live.add(s);
                return s;
            },
            close: async (s) => {
                live.delete(s);
                await s.close();
            },
            reopen: async () => {
                if (!opened?.reopen) throw new Error(`${name} cannot reopen its data`);
                if (current) await ctx.close(current);
                current = await opened.reopen();
                live.add(current);
                return current;
            },
        };
        beforeEach(async () => {
            opened = await open();
            current = opened.storage;
            live.add(current);
        });
        afterEach(async () => {
            const closing = [...live];
            live.clear();
            current = undefined;
            await Promise.allSettled(closing.map((s) => s.close()));
            await opened?.cleanup();
            opened = undefined;
        });
        eventLogCases(ctx);
        deletionCases(ctx);
        queryCases(ctx);
        outboxCases(ctx);
        feedCases(ctx);
        metaHealthCases(ctx);
        writerCases(ctx);
        storeCases(ctx, { webhooks: options.webhooks ?? false, blobs: options.blobs ?? false });
        replayJobCases({ shared: ctx.shared, jobs: () => ctx.storage().replayJobs, peer: async () => (await ctx.peer()).replayJobs, reopen: async () => (await ctx.reopen()).replayJobs });
        if (options.outage) outageCases(ctx, options.outage);
    });
}
