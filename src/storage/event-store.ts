import type { LogsPage, LogsQuery } from './query-types.js';
import type { ExportEntry, ForwardOutcome, LogEntry, NewEvent, ReplayRecord, StoredBody } from './types.js';

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

/** The durable event store: one writer, many readers. */
export interface EventStore {
    /** Resolves once the event is committed durably; rejects (never silently drops) when it cannot be. */
    append(event: NewEvent): Promise<void>;
    /** Inserts events restored from the dataset unless their id exists; they are not exported again. */
    importEvents(events: NewEvent[]): Promise<number>;
    /** The full entry. Throws NotFoundError when no event has this id. */
    getEntry(id: string): LogEntry;
    /**
     * Up to `limit` full entries committed after event `id`, in capture order; undefined when `id` is
     * unknown. With `bodyLimit`, a body larger than that many bytes is not read (its entry carries
     * no body: the caller sends a reference instead).
     */
    entriesAfter(id: string, limit: number, bodyLimit?: number): LogEntry[] | undefined;
    /** Records a replay of an event (kept: the latest 50). Resolves once committed. */
    recordReplay(eventId: string, record: ReplayRecord): Promise<void>;
    /** Records final forwarding outcomes (the latest per event wins), taking each event off the forwarding backlog. */
    recordForwards(rows: readonly { eventId: string; outcome: ForwardOutcome }[]): Promise<void>;
    /**
     * Up to `limit` captures of the forwarding backlog after `afterSeq`, in capture order: those stored
     * before the store opened, and those whose append has resolved (or is resolving) on this thread.
     */
    readForwardBacklog(afterSeq: number, limit: number): BacklogItem[];
    /** The stored request of an event for forwarding, or undefined when no event has this id. */
    forwardSource(id: string): ForwardSource | undefined;
    /** The owning webhook of an event, or undefined when no event has this id. */
    webhookOf(id: string): string | undefined;
    /** Resolves a timestamp (ms) to the newest event id of the webhook at that instant, if any. */
    idAtTimestamp(webhookId: string, ts: number): string | undefined;
    /** The stored body of an event. Throws NotFoundError when no event has this id. */
    getBody(id: string): StoredBody;
    /**
     * An event for export, its row and body read once: the entry without `replays`, `forward` or a
     * decoded `body` (read `body` instead). Throws NotFoundError when no event has this id.
     */
    getExportRecord(id: string): { entry: ExportEntry; body: StoredBody };
    /**
     * Runs a GET /logs query off the main thread. Throws BadRequestError for an unusable cursor, 503
     * when too many queries are in progress, 504 past the time limit; `signal` stops it (client gone).
     */
    query(q: LogsQuery, signal?: AbortSignal): Promise<LogsPage>;
    /** Counters of the query pool (refused with 503, stopped by the time limit with 504, cancelled), when queries run in workers. */
    queryStats(): { refused: number; timedOut: number; cancelled: number } | undefined;
    /**
     * The oldest events not yet exported: at most `limit`, and no more than `maxBytes` of stored
     * bodies and envelopes (but always the first one, whatever its size). With `afterSeq`, the
     * events after that one, and none when the first of them is over `maxBytes`: a batch read in
     * slices.
     */
    readOutbox(limit: number, maxBytes?: number, afterSeq?: number): OutboxItem[];
    /**
     * Deletes events and everything kept for them: body, outbox and forwarding backlog entries,
     * replays, forwarding outcome. Resolves with how many existed and the blob keys their payloads may
     * sit under (the caller deletes those). Keep batches small: the writer commits each in one go.
     */
    deleteEvents(ids: readonly string[]): Promise<{ deleted: number; blobKeys: string[] }>;
    /** Marks ids as deleted without having them (deleted on another disk): imports skip them. */
    addTombstones(ids: readonly string[]): Promise<void>;
    /** Gives up to `pages` free database pages back to the file system; resolves with the free pages left. */
    reclaimSpace(pages: number): Promise<number>;
    /** Marks outbox entries up to and including `seq` as exported, committing the sink's position with it. */
    markExported(seq: number, sinkPosition?: string): Promise<void>;
    /** Reads a value of the meta table. */
    getMeta(key: string): string | undefined;
    /** Writes a value of the meta table. */
    setMeta(key: string, value: string): Promise<void>;
    /** Counters for metrics. */
    stats(): StoreStats;
    /** Whether reads and writes work; false after the writer failed. */
    healthy(): boolean;
    /** Commits pending writes and closes every connection. */
    close(): Promise<void>;
}
