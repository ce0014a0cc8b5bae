import type { ServiceTimings } from '../config/index.js';
import type { Logger } from '../lib/log.js';
import type { ActorStorage } from './apify/actor-storage.js';
import type { Deadlines } from './apify/deadline.js';
import { DatasetFollower, isFollowable } from './apify/dataset-follow.js';
import { restoreFromDataset, restoreUnfinished } from './apify/dataset-restore.js';
import { KvReplayJobStore } from './apify/kv-replay-jobs.js';
import { KvWebhookStore } from './apify/webhook-registry.js';
import type { StorageBundle } from './bundle.js';
import { KvDeletionLog } from './deletion-log.js';
import type { Storage } from './roles.js';

/** What SQLite mode keeps outside its file, and how it is run. */
export interface EmbeddedOptions {
    /** The actor's key-value store and payload store: webhooks, payloads and deleted ids live there. */
    actor: Pick<ActorStorage, 'kvs' | 'blobs'>;
    /** Deadlines of the platform's API calls, for the webhook store. */
    deadlines?: Deadlines | undefined;
    /** On the platform, Standby runs side by side share the named key-value store and dataset. */
    onPlatform: boolean;
    timings: Pick<ServiceTimings, 'webhookPollMs'>;
    log: Logger;
}

/**
 * SQLite mode, complete: the embedded store for events, and the actor's storages for the rest. The
 * file is a read model of the dataset: `fresh` (no file before it opened), it is rebuilt from the
 * dataset in the background, without the captures deleted before (the deletion log).
 */
export async function embeddedBundle(store: Storage, fresh: boolean, options: EmbeddedOptions): Promise<StorageBundle> {
    const { actor, log } = options;
    const deletions = new KvDeletionLog(actor.kvs);
    const webhooks = new KvWebhookStore(actor.kvs, options.deadlines);
    try {
        if (fresh) await store.events.addTombstones(await deletions.load());
        await webhooks.migrate();
    } catch (error) {
        await store.close();
        throw error;
    }
    return {
        ...store,
        // On the platform the file does not outlive the container: jobs live with the webhooks, so a
        // migration's new container (or another Standby run) goes on with them.
        replayJobs: options.onPlatform ? new KvReplayJobStore(actor.kvs, options.deadlines) : store.replayJobs,
        webhooks,
        blobs: actor.blobs,
        deletions,
        // Other Standby runs create and change webhooks in the named store: one listing per poll.
        pollWebhooksMs: options.onPlatform ? options.timings.webhookPollMs : 0,
        // One process: its own commits are the only ones that add to the forwarding backlog.
        forwardWakeMs: 0,
        // Locally only this process makes jobs. On the platform each look lists the key-value store, so
        // it looks seldom (the webhook registry already lists it every 2 s): a job made here starts at
        // once, and one a stopped run held is taken over within its 30 s lease plus one look.
        replayJobPollMs: options.onPlatform ? 20_000 : 2000,
        startBackground: async ({ dataset, publish, readiness }) => {
            // Standby runs alive at once: each merges the others' captures from the named dataset.
            const follower = isFollowable(dataset) ? new DatasetFollower(dataset, store, publish, log) : undefined;
            follower?.start();
            if (fresh || (await restoreUnfinished(store.meta))) void restoreFromDataset(dataset, store, readiness, log);
            return { stop: async () => await follower?.stop() };
        },
    };
}
