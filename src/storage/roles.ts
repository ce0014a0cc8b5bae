import type { BlobStore } from './blob-store.js';
import type { BacklogItem, ForwardSource, OutboxItem, StoreStats } from './event-store.js';
import type { LogsPage, LogsQuery } from './query-types.js';
import type { ExportEntry, ForwardOutcome, LogEntry, NewEvent, ReplayRecord, StoredBody } from './types.js';
import type { ReplayJobStore } from './replay-job-store.js';
import type { WebhookStore } from './webhook-store.js';

export type { BacklogItem, ForwardSource, OutboxItem, StoreStats, SyncMode } from './event-store.js';

// The storage seam: one small async interface per role. A backend (SQLite embedded, PostgreSQL
// shared) implements every role; the rest of the service depends on the roles it uses and never
// on a backend, a connection or a row. The contract suite (test/contract) holds each backend to
// the same behaviour.

/** Which engine keeps the events. */
export type BackendName = 'sqlite' | 'postgres';

/** Events and their queries. */
export interface EventLog {
    /**
     * Whether append describes a form body handed over with `formSource` (SQLite: on its writer
     * thread, so the capture thread does not parse it). Where it is false, ingest describes forms.
     */
    readonly describesForms?: boolean;
    /**
     * Resolves once the event is committed durably; rejects (never silently drops) when it cannot
     * be: with StoreUnavailableError while the database is away.
     */
    append(event: NewEvent): Promise<void>;
    /** Inserts events restored or merged from the dataset unless their id exists or was deleted; they are not exported again. Resolves with how many were new. */
    importEvents(events: NewEvent[]): Promise<number>;
    /** The full entry, with replays and forwarding outcome. Rejects with NotFoundError when no event has this id. */
    getEntry(id: string): Promise<LogEntry>;
    /** The owning webhook of an event, or undefined when no event has this id. */
    webhookOf(id: string): Promise<string | undefined>;
    /** The newest event id of the webhook captured at exactly `ts` (ms), if any. */
    idAtTimestamp(webhookId: string, ts: number): Promise<string | undefined>;
    /**
     * Answers a GET /logs query. Rejects with BadRequestError for an unusable cursor, 503 when too
     * many queries are in progress, 504 past the time limit; `signal` stops it (client gone).
     */
    query(q: LogsQuery, signal?: AbortSignal): Promise<LogsPage>;
    /** Records a replay of an event (kept: the latest 50). Resolves once committed. */
    recordReplay(eventId: string, record: ReplayRecord): Promise<void>;
    /**
     * Deletes events and everything kept for them: body, outbox and forwarding backlog entries,
     * replays, forwarding outcome. Resolves with how many existed and the blob keys their payloads
     * may sit under (the caller deletes those). Deleted ids become tombstones.
     */
    deleteEvents(ids: readonly string[]): Promise<{ deleted: number; blobKeys: string[] }>;
    /** Marks ids as deleted without having them (deleted elsewhere): imports skip them. */
    addTombstones(ids: readonly string[]): Promise<void>;
}

/** Stored bodies of events (small ones inline; large ones in the backend's BlobStore). */
export interface BodyReader {
    /** The stored body of an event. Rejects with NotFoundError when no event has this id. */
    getBody(id: string): Promise<StoredBody>;
}

/** Events waiting for export to the dataset. With several instances, each event is exported by one. */
export interface ExportOutbox {
    /**
     * The oldest events not yet exported (and not claimed by another live instance): at most
     * `limit`, and no more than `maxBytes` of stored bodies and envelopes (but always the first one).
     * With `afterSeq`, the claimed events after that one, and none when the first of them is over
     * `maxBytes`: a batch read in slices.
     */
    readOutbox(limit: number, maxBytes?: number, afterSeq?: number): Promise<OutboxItem[]>;
    /**
     * An event for export, its row and body read once: the entry without `replays`, `forward` or a
     * decoded `body` (read `body` instead). Rejects with NotFoundError when no event has this id.
     */
    getExportRecord(id: string): Promise<{ entry: ExportEntry; body: StoredBody }>;
    /** Marks outbox entries up to and including `seq` as exported, committing the sink's position with it. */
    markExported(seq: number, sinkPosition?: string): Promise<void>;
}

/** Captures waiting to be forwarded. With several instances, each capture is forwarded by one. */
export interface ForwardBacklog {
    /**
     * Up to `limit` captures of the backlog after `afterSeq`, in capture order, that this instance
     * may forward: its own, those stored before it opened, and those of instances that died.
     */
    readForwardBacklog(afterSeq: number, limit: number): Promise<BacklogItem[]>;
    /** The stored request of an event for forwarding, or undefined when no event has this id. */
    forwardSource(id: string): Promise<ForwardSource | undefined>;
    /** Records final forwarding outcomes (the latest per event wins), taking each event off the backlog. */
    recordForwards(rows: readonly { eventId: string; outcome: ForwardOutcome }[]): Promise<void>;
}

/** The stored side of the live stream: resume after an id, and events committed by other instances. */
export interface LiveFeed {
    /**
     * Up to `limit` full entries committed after event `id`, in commit order; undefined when `id` is
     * unknown. With `bodyLimit`, a body larger than that many bytes is not read (the caller sends a
     * reference instead).
     */
    entriesAfter(id: string, limit: number, bodyLimit?: number): Promise<LogEntry[] | undefined>;
    /**
     * Calls `listener` with the ids of events other instances committed, in commit order, soon after
     * each commit. One instance (SQLite) never calls it. Returns the unsubscribe function.
     */
    onForeignEvents(listener: (ids: string[]) => void): () => void;
    /**
     * True when every commit, this instance's own too, reaches `onCommitted` in commit order (a shared
     * database): the live hub then streams only what the feed gives, so a stream follows the commit
     * order whichever instance captured, and Last-Event-ID resumes without a gap. False with one
     * process (SQLite): the ingest path publishes each event as it commits, already in that order.
     */
    readonly ordersLive: boolean;
    /**
     * Calls `listener` with the ids of every event committed, by any instance, in commit order, soon
     * after each commit; only when `ordersLive`. Returns the unsubscribe function.
     */
    onCommitted(listener: (ids: string[]) => void): () => void;
    /**
     * Resolves once `onCommitted` has delivered every event committed before the call (at once when
     * not `ordersLive`; after a few seconds at most when the feed cannot read).
     */
    caughtUp(): Promise<void>;
    /** The full entries of those of `ids` that exist, in the order given; bodies over `bodyLimit` unread (as entriesAfter). */
    entriesOf(ids: readonly string[], bodyLimit?: number): Promise<LogEntry[]>;
}

/** Small facts the service keeps about itself (restore progress, the dataset sink's position). */
export interface StoreMeta {
    getMeta(key: string): Promise<string | undefined>;
    setMeta(key: string, value: string): Promise<void>;
}

/** What /ready, /info and /system/metrics report about the backend. */
export interface StoreHealth {
    readonly backend: BackendName;
    /** Counters for metrics. */
    stats(): Promise<StoreStats>;
    /** Counters of the query pool (refused, timed out, cancelled), when queries run in workers. */
    queryStats(): { refused: number; timedOut: number; cancelled: number } | undefined;
    /** Whether reads and writes work, as last seen; false after the writer failed or while the database is away. */
    healthy(): boolean;
    /** Why it is not healthy, when it is not. */
    problem(): string | undefined;
    /** Gives up to `pages` free pages back to the file system (SQLite); resolves with the free pages left. */
    reclaimSpace(pages: number): Promise<number>;
}

/** Every role of one backend, opened. */
export interface Storage {
    readonly backend: BackendName;
    events: EventLog;
    bodies: BodyReader;
    outbox: ExportOutbox;
    forwards: ForwardBacklog;
    feed: LiveFeed;
    meta: StoreMeta;
    health: StoreHealth;
    /** Bulk replay jobs: their fixed sets, progress and who runs each. */
    replayJobs: ReplayJobStore;
    /**
     * Where webhooks persist; undefined when the backend does not keep them (SQLite: the actor's
     * key-value store keeps them).
     */
    webhooks?: WebhookStore;
    /** Where large payloads go; undefined when the backend does not keep them (SQLite: files or the key-value store). */
    blobs?: BlobStore;
    /** Commits pending writes and closes every connection. */
    close(): Promise<void>;
}
