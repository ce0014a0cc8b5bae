import type { DatasetSink } from './apify/dataset-sink.js';
import type { BlobStore } from './blob-store.js';
import type { DeletionLog } from './deletion-log.js';
import type { Readiness } from './readiness.js';
import type { Storage } from './roles.js';
import type { NewEvent } from './types.js';
import type { WebhookStore } from './webhook-store.js';

/** What a storage mode's background work is given when the service starts it. */
export interface BackgroundContext {
    /** The dataset the export writes to, opened at the position committed with the export watermark. */
    dataset: DatasetSink;
    /** Hands an event merged from elsewhere to the live stream. */
    publish: (event: NewEvent) => void;
    /** Where a catch-up from the dataset reports its progress (GET /ready). */
    readiness: Readiness;
}

/** A storage mode's background work, running. */
export interface BackgroundWork {
    /** Stops it after the round in progress. */
    stop(): Promise<void>;
}

/**
 * Everything the service keeps, complete for the configured mode (openStorage): every role of the
 * backend, where webhooks, payloads and deleted ids go in that mode, how often what others change
 * is read again, and what the mode does in the background. The composition root only wires it:
 * nothing outside src/storage asks which mode runs.
 */
export interface StorageBundle extends Storage {
    /**
     * Where webhooks persist. SQLite mode: the actor's key-value store (on the platform the named
     * one, which Standby runs share). PostgreSQL: its own table.
     */
    readonly webhooks: WebhookStore;
    /**
     * Where payloads over the offload threshold go. SQLite mode: the actor's payload folder (locally)
     * or key-value store (platform). PostgreSQL: its own chunks.
     */
    readonly blobs: BlobStore;
    /**
     * Where deleted capture ids are remembered, so that a rebuild from the dataset does not bring
     * them back (SQLite mode); undefined where the store is the truth itself (PostgreSQL).
     */
    readonly deletions: DeletionLog | undefined;
    /**
     * How often the webhook store is read again for changes made elsewhere (Standby runs side by
     * side, instances on one database), ms; 0 where nobody else changes it (SQLite mode, locally).
     */
    readonly pollWebhooksMs: number;
    /**
     * How often the forwarder reads its backlog with no commit to wake it, ms: with several
     * instances, a dead one's share is claimed then (PostgreSQL); 0 where only this process's
     * commits add to it.
     */
    readonly forwardWakeMs: number;
    /**
     * How often free bulk replay jobs are looked for, ms: jobs made by other instances or runs, and
     * those a dead one left (a job made here is claimed at once).
     */
    readonly replayJobPollMs: number;
    /**
     * Starts the mode's background work. SQLite mode: a read model whose file is new, or whose
     * restore was cut short, catches up from the dataset, and the captures other Standby runs add
     * to the platform's dataset are merged. PostgreSQL: none (the dataset only receives the export).
     */
    startBackground(context: BackgroundContext): Promise<BackgroundWork>;
}
