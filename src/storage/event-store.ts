import type { LogEntry, StoredBody } from './types.js';

// Shapes the storage roles (roles.ts) exchange, shared by every backend.

/**
 * How a commit is made durable. `full`: every commit (one per group) is fsynced before its senders
 * are answered, so an answered event survives SIGKILL and power loss. `normal`: the commit is in the
 * WAL file but not fsynced until the next checkpoint; it survives a crash of the process, not of the
 * machine. The fsync is ~15% of ingest throughput on a VM disk (bench/README.md).
 */
export type SyncMode = 'full' | 'normal';

/** Figures for /system/metrics and /ready. */
export interface StoreStats {
    eventsStored: number;
    outboxBacklog: number;
    /** Captures waiting to be forwarded (or in flight). */
    forwardBacklog: number;
    offloadedPayloads: number;
    /** Stored events not yet in the query indexes (PostgreSQL's inbox; SQLite indexes in the commit). Queries see them all the same. */
    unindexed?: number;
    databaseBytes: number;
    /** How commits are made durable, as the database reports it: `full` fsyncs each group commit. */
    durability: SyncMode | 'other';
}

/** An event waiting in the outbox for export to the dataset. */
export interface OutboxItem {
    seq: number;
    entry: LogEntry;
    /** The body text as received, for JSON bodies. */
    rawText?: string;
    /** What the event counts against a read's `maxBytes`. */
    bytes: number;
}

/** A capture waiting in the forwarding backlog. */
export interface BacklogItem {
    seq: number;
    eventId: string;
    /** Whether the stored request is the one to forward (else only the capture's memory had it). */
    exact: boolean;
}

/** What a forward of a stored event sends: the captured method and headers, and the stored body. */
export interface ForwardSource {
    method: string;
    headers: Record<string, unknown>;
    body: StoredBody;
}
