import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { NotFoundError } from '../../errors.js';
import { assertCursorFits } from '../cursor-fit.js';
import type { BacklogItem, ForwardSource, OutboxItem, StoreStats, SyncMode } from '../event-store.js';
import type { BodyReader, EventLog, ExportOutbox, ForwardBacklog, LiveFeed, StoreHealth, StoreMeta } from '../roles.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import type { ExportEntry, ForwardOutcome, LogEntry, NewEvent, ReplayRecord, StoredBody } from '../types.js';
import { QueryPool, type PoolStats, type QueryPoolOptions } from './query-pool.js';
import { encodeEvent, rowToEntry, type BodyRow, type EventRow } from './rows.js';
import { SqliteReplayJobStore } from './replay-jobs.js';
import { prepareReader, REPLAY_HISTORY } from './schema.js';
import { WorkerWriter } from './writer.js';

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
    /** Database file. */
    file: string;
    /** Query workers; 0 runs queries on the calling thread (tools and benches only). */
    queryWorkers?: number;
    /** Commit durability; `normal` (WAL without an fsync per commit) unless set. */
    sync?: SyncMode;
    /** Bounds of the query pool (tests shorten them). */
    pool?: QueryPoolOptions;
}

/** No-op unsubscribe of a feed that never has foreign events. */
const NO_UNSUBSCRIBE = (): void => undefined;

/**
 * The embedded read model and durable log: a writer worker with group commit, a read-only
 * connection here for point lookups, and a pool of query workers for GET /logs. One object plays
 * every role of the seam (storage/roles.ts); reads answer synchronously underneath, as resolved
 * promises. One process owns the file, so the live feed never has foreign events.
 */
export class SqliteEventStore implements EventLog, BodyReader, ExportOutbox, ForwardBacklog, LiveFeed, StoreMeta, StoreHealth {
    readonly backend = 'sqlite';
    /** Form bodies are described on the writer thread (writer-forms.ts), off the capture thread. */
    readonly describesForms = true;

    private readonly writer: WorkerWriter;
    private readonly reader: Database.Database;
    private readonly pool: QueryPool | undefined;
    private readonly statements;
    /** The last event position when the store opened; later ones are known from the writer's replies. */
    private readonly lastSeqAtOpen: number;
    /** Bulk replay jobs, in the same file and through the same writer. */
    readonly replayJobs: SqliteReplayJobStore;

    private constructor(private readonly file: string, writer: WorkerWriter, queryWorkers: number, private readonly durability: StoreStats['durability'], poolOptions: QueryPoolOptions = {}) {
        this.writer = writer;
        this.reader = new Database(file, { readonly: true, fileMustExist: true });
        prepareReader(this.reader, 8000);
        this.pool = queryWorkers > 0 ? new QueryPool(file, queryWorkers, poolOptions) : undefined;
        const r = this.reader;
        this.lastSeqAtOpen = (r.prepare('SELECT max(seq) FROM events').pluck().get() as number | null) ?? 0;
        this.replayJobs = new SqliteReplayJobStore(r, writer);
        this.statements = {
            entry: r.prepare('SELECT * FROM events WHERE id = ?'),
            body: r.prepare('SELECT text, raw FROM bodies WHERE seq = ?'),
            webhookOf: r.prepare('SELECT webhook_id FROM events WHERE id = ?').pluck(),
            atTs: r.prepare('SELECT id FROM events WHERE webhook_id = ? AND ts = ? ORDER BY id DESC LIMIT 1').pluck(),
            // Sizes first (no body is read), so a batch is cut by bytes before any body loads.
            outboxSizes: r.prepare(`SELECT o.seq AS seq, (CASE WHEN e.body_kind = 'offloaded' THEN 0 ELSE e.size END)
                + length(e.headers) + length(e.query) + length(e.response_body) + 512 AS bytes
                FROM outbox o JOIN events e ON e.seq = o.seq WHERE o.seq > ? ORDER BY o.seq LIMIT ?`),
            outbox: r.prepare('SELECT e.*, b.text AS b_text, b.raw AS b_raw FROM outbox o JOIN events e ON e.seq = o.seq LEFT JOIN bodies b ON b.seq = o.seq WHERE o.seq > ? AND o.seq <= ? ORDER BY o.seq LIMIT ?'),
            meta: r.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
            replays: r.prepare(`SELECT data FROM (SELECT id, data FROM replays WHERE event_id = ? ORDER BY id DESC LIMIT ${REPLAY_HISTORY}) ORDER BY id`).pluck(),
            seqOf: r.prepare('SELECT seq FROM events WHERE id = ?').pluck(),
            forward: r.prepare('SELECT data FROM forwards WHERE event_id = ?').pluck(),
            forwardBacklog: r.prepare('SELECT seq, event_id AS eventId, exact FROM forward_backlog WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?'),
            forwardBacklogSize: r.prepare('SELECT count(*) FROM forward_backlog').pluck(),
            after: r.prepare('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?'),
            exactCount: r.prepare('SELECT count(*) FROM events').pluck(),
            backlog: r.prepare('SELECT count(*) FROM outbox').pluck(),
            offloaded: r.prepare(`SELECT count(*) FROM events WHERE body_kind = 'offloaded'`).pluck(),
        };
    }

    /** Opens (creating if needed) the store. The writer prepares the schema before readers attach. */
    static async open(options: SqliteStoreOptions): Promise<SqliteEventStore> {
        mkdirSync(dirname(options.file), { recursive: true });
        const writer = new WorkerWriter(options.file, options.sync ?? 'normal');
        // Sent in the same turn, the two are committed together.
        const [, { durability = 'other' }] = await Promise.all([
            writer.request({ op: 'setMeta', key: 'opened_at', value: new Date().toISOString() }),
            writer.request({ op: 'describe' }),
        ]);
        return new SqliteEventStore(options.file, writer, options.queryWorkers ?? 2, durability, options.pool);
    }

    append(event: NewEvent): Promise<void> {
        return this.writer.append(event);
    }

    async importEvents(events: NewEvent[]): Promise<number> {
        const reply = await this.writer.request({ op: 'import', records: events.map(encodeEvent) });
        return reply.inserted ?? 0;
    }

    async getEntry(id: string): Promise<LogEntry> {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        return this.withReplays(rowToEntry(row, this.bodyRowOf(row)));
    }

    async entriesAfter(id: string, limit: number, bodyLimit = Infinity): Promise<LogEntry[] | undefined> {
        const seq = this.statements.seqOf.get(id) as number | undefined;
        if (seq === undefined) return undefined;
        const rows = this.statements.after.all(seq, limit) as EventRow[];
        // A body over bodyLimit is never loaded: a live-stream resume sends a reference for it.
        return rows.map((row) => this.withReplays(rowToEntry(row, row.size > bodyLimit ? undefined : this.bodyRowOf(row))));
    }

    async entriesOf(ids: readonly string[], bodyLimit = Infinity): Promise<LogEntry[]> {
        const rows = ids.map((id) => this.statements.entry.get(id) as EventRow | undefined).filter((row) => row !== undefined);
        return rows.map((row) => this.withReplays(rowToEntry(row, row.size > bodyLimit ? undefined : this.bodyRowOf(row))));
    }

    async recordReplay(eventId: string, record: ReplayRecord): Promise<void> {
        await this.writer.request({ op: 'replay', eventId, data: JSON.stringify(record) });
    }

    async recordForwards(rows: readonly { eventId: string; outcome: ForwardOutcome }[]): Promise<void> {
        if (rows.length === 0) return;
        await this.writer.request({ op: 'forwards', rows: rows.map((r) => [r.eventId, JSON.stringify(r.outcome)]) });
    }

    /** Adds the event's replay history (`[]` when never replayed) and its forwarding outcome, if any. */
    private withReplays(entry: LogEntry): LogEntry {
        entry.replays = (this.statements.replays.all(entry.id) as string[]).map((d) => JSON.parse(d) as ReplayRecord);
        const forward = this.statements.forward.get(entry.id) as string | undefined;
        if (forward !== undefined) entry.forward = JSON.parse(forward) as ForwardOutcome;
        return entry;
    }

    /** The `bodies` row of an event row, if it has one. */
    private bodyRowOf(row: EventRow): BodyRow | undefined {
        return this.statements.body.get(row.seq) as BodyRow | undefined;
    }

    async readForwardBacklog(afterSeq: number, limit: number): Promise<BacklogItem[]> {
        // Only commits this thread has been told of: a row the writer has committed but whose reply is
        // still on its way belongs to a capture whose request has not reached the forwarder yet.
        const upTo = Math.max(this.lastSeqAtOpen, this.writer.committedSeq);
        return (this.statements.forwardBacklog.all(afterSeq, upTo, limit) as { seq: number; eventId: string; exact: number }[]).map((r) => ({ seq: r.seq, eventId: r.eventId, exact: r.exact === 1 }));
    }

    async forwardSource(id: string): Promise<ForwardSource | undefined> {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) return undefined;
        return { method: row.method, headers: JSON.parse(row.headers) as Record<string, unknown>, body: storedBody(row, this.bodyRowOf(row)) };
    }

    async webhookOf(id: string): Promise<string | undefined> {
        return this.statements.webhookOf.get(id) as string | undefined;
    }

    async idAtTimestamp(webhookId: string, ts: number): Promise<string | undefined> {
        return this.statements.atTs.get(webhookId, ts) as string | undefined;
    }

    async getBody(id: string): Promise<StoredBody> {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        return storedBody(row, this.bodyRowOf(row));
    }

    async getExportRecord(id: string): Promise<{ entry: ExportEntry; body: StoredBody }> {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        const body = storedBody(row, this.bodyRowOf(row));
        // The body row is passed as absent so a JSON body is not parsed for nothing: `body` carries its bytes.
        const { body: _unread, bodyEncoding: _none, ...entry } = rowToEntry(row, undefined);
        return { entry, body };
    }

    async query(q: LogsQuery, signal?: AbortSignal): Promise<LogsPage> {
        if (q.cursor) assertCursorFits(q.cursor, q.sort);
        if (this.pool) return this.pool.run(q, signal);
        const { runLogsQuery } = await import('./query.js');
        return runLogsQuery(this.reader, q);
    }

    /** The query pool's counters (refused, timed out, cancelled) and its requests out, when queries run in workers. */
    queryStats(): (PoolStats & { pending: number }) | undefined {
        return this.pool ? { ...this.pool.stats, pending: this.pool.pending } : undefined;
    }

    async readOutbox(limit: number, maxBytes = Infinity, afterSeq?: number): Promise<OutboxItem[]> {
        const sizes = this.statements.outboxSizes.all(afterSeq ?? 0, limit) as { seq: number; bytes: number }[];
        // From the watermark, always at least one event, however large; then as many as fit in maxBytes.
        let taken = afterSeq === undefined ? Math.min(1, sizes.length) : 0;
        let bytes = taken === 1 ? sizes[0]!.bytes : 0;
        while (taken < sizes.length && bytes + sizes[taken]!.bytes <= maxBytes) bytes += sizes[taken++]!.bytes;
        if (taken === 0) return [];
        const bytesOf = new Map(sizes.slice(0, taken).map((s) => [s.seq, s.bytes]));
        const rows = this.statements.outbox.all(afterSeq ?? 0, sizes[taken - 1]!.seq, taken) as (EventRow & { b_text: string | null; b_raw: Buffer | null })[];
        return rows.map((r) => {
            const item: OutboxItem = { seq: r.seq, entry: rowToEntry(r, { text: r.b_text, raw: r.b_raw }), bytes: bytesOf.get(r.seq) ?? 0 };
            if (r.body_kind === 'json' && r.b_text !== null) item.rawText = r.b_text;
            return item;
        });
    }

    async deleteEvents(ids: readonly string[]): Promise<{ deleted: number; blobKeys: string[] }> {
        if (ids.length === 0) return { deleted: 0, blobKeys: [] };
        const reply = await this.writer.request({ op: 'delete', ids: [...ids] });
        return { deleted: reply.deleted ?? 0, blobKeys: reply.blobKeys ?? [] };
    }

    async addTombstones(ids: readonly string[]): Promise<void> {
        for (let i = 0; i < ids.length; i += 5000) await this.writer.request({ op: 'tombstones', ids: ids.slice(i, i + 5000) });
    }

    async reclaimSpace(pages: number): Promise<number> {
        const reply = await this.writer.request({ op: 'vacuum', pages });
        return reply.freePages ?? 0;
    }

    async markExported(seq: number, sinkPosition?: string): Promise<void> {
        await this.writer.request(sinkPosition === undefined ? { op: 'exported', upToSeq: seq } : { op: 'exported', upToSeq: seq, sinkPosition });
    }

    async getMeta(key: string): Promise<string | undefined> {
        return this.statements.meta.get(key) as string | undefined;
    }

    async setMeta(key: string, value: string): Promise<void> {
        await this.writer.request({ op: 'setMeta', key, value });
    }

    async stats(): Promise<StoreStats> {
        let databaseBytes = 0;
        for (const suffix of ['', '-wal']) {
            try {
                databaseBytes += statSync(this.file + suffix).size;
            } catch {
                // The WAL file may not exist between checkpoints.
            }
        }
        return {
            eventsStored: this.statements.exactCount.get() as number,
            outboxBacklog: this.statements.backlog.get() as number,
            forwardBacklog: this.statements.forwardBacklogSize.get() as number,
            offloadedPayloads: this.statements.offloaded.get() as number,
            databaseBytes,
            durability: this.durability,
        };
    }

    /** One process: no other instance commits to this file. */
    onForeignEvents(_listener: (ids: string[]) => void): () => void {
        return NO_UNSUBSCRIBE;
    }

    /** Ingest publishes each event as it commits, in commit order: the feed does not carry them. */
    readonly ordersLive = false;

    onCommitted(_listener: (ids: string[]) => void): () => void {
        return NO_UNSUBSCRIBE;
    }

    async caughtUp(): Promise<void> {}

    healthy(): boolean {
        return this.problem() === undefined;
    }

    problem(): string | undefined {
        if (!this.writer.healthy) return 'the SQLite writer failed; storage is not writable';
        try {
            this.statements.meta.get('schema_version');
            return undefined;
        } catch (error) {
            return `the SQLite database cannot be read: ${String(error)}`;
        }
    }

    async close(): Promise<void> {
        await this.writer.close();
        await this.pool?.close();
        this.reader.close();
    }
}

/** The stored body of an event row and its `bodies` row. */
function storedBody(row: EventRow, body: BodyRow | undefined): StoredBody {
    const stored: StoredBody = { kind: row.body_kind, contentType: row.content_type, size: row.size };
    if (row.blob_key) stored.blobKey = row.blob_key;
    if (body) stored.raw = body.raw ?? Buffer.from(body.text ?? '', 'utf8');
    else if (row.body_kind === 'empty') stored.raw = Buffer.alloc(0);
    return stored;
}
