import Database from 'better-sqlite3';
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { NotFoundError } from '../../errors.js';
import type { EventStore, OutboxItem, StoreStats, SyncMode } from '../event-store.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import type { LogEntry, NewEvent, StoredBody } from '../types.js';
import { QueryPool } from './query-pool.js';
import { encodeEvent, rowToEntry, type BodyRow, type EventRow } from './rows.js';
import { prepareReader } from './schema.js';
import { WorkerWriter } from './writer.js';

/** Options of the SQLite store. */
export interface SqliteStoreOptions {
    /** Database file. */
    file: string;
    /** Query workers; 0 runs queries on the calling thread (tools and benches only). */
    queryWorkers?: number;
    /** Commit durability; `full` unless set. */
    sync?: SyncMode;
}

/**
 * The embedded read model and durable log: a writer worker with group commit, a read-only
 * connection here for point lookups, and a pool of query workers for GET /logs.
 */
export class SqliteEventStore implements EventStore {
    private readonly writer: WorkerWriter;
    private readonly reader: Database.Database;
    private readonly pool: QueryPool | undefined;
    private readonly statements;

    private constructor(private readonly file: string, writer: WorkerWriter, queryWorkers: number, private readonly durability: StoreStats['durability']) {
        this.writer = writer;
        this.reader = new Database(file, { readonly: true, fileMustExist: true });
        prepareReader(this.reader, 8000);
        this.pool = queryWorkers > 0 ? new QueryPool(file, queryWorkers) : undefined;
        const r = this.reader;
        this.statements = {
            entry: r.prepare('SELECT * FROM events WHERE id = ?'),
            body: r.prepare('SELECT text, raw FROM bodies WHERE seq = ?'),
            webhookOf: r.prepare('SELECT webhook_id FROM events WHERE id = ?').pluck(),
            atTs: r.prepare('SELECT id FROM events WHERE webhook_id = ? AND ts = ? ORDER BY id DESC LIMIT 1').pluck(),
            outbox: r.prepare('SELECT e.*, b.text AS b_text, b.raw AS b_raw FROM outbox o JOIN events e ON e.seq = o.seq LEFT JOIN bodies b ON b.seq = o.seq ORDER BY o.seq LIMIT ?'),
            meta: r.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
            exactCount: r.prepare('SELECT count(*) FROM events').pluck(),
            backlog: r.prepare('SELECT count(*) FROM outbox').pluck(),
            offloaded: r.prepare(`SELECT count(*) FROM events WHERE body_kind = 'offloaded'`).pluck(),
        };
    }

    /** Opens (creating if needed) the store. The writer prepares the schema before readers attach. */
    static async open(options: SqliteStoreOptions): Promise<SqliteEventStore> {
        mkdirSync(dirname(options.file), { recursive: true });
        const writer = new WorkerWriter(options.file, options.sync);
        // Sent in the same turn, the two are committed together.
        const [, { durability = 'other' }] = await Promise.all([
            writer.request({ op: 'setMeta', key: 'opened_at', value: new Date().toISOString() }),
            writer.request({ op: 'describe' }),
        ]);
        return new SqliteEventStore(options.file, writer, options.queryWorkers ?? 2, durability);
    }

    append(event: NewEvent): Promise<void> {
        return this.writer.append(event);
    }

    async importEvents(events: NewEvent[]): Promise<number> {
        const reply = await this.writer.request({ op: 'import', records: events.map(encodeEvent) });
        return reply.inserted ?? 0;
    }

    getEntry(id: string): LogEntry {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        return rowToEntry(row, this.statements.body.get(row.seq) as BodyRow | undefined);
    }

    webhookOf(id: string): string | undefined {
        return this.statements.webhookOf.get(id) as string | undefined;
    }

    idAtTimestamp(webhookId: string, ts: number): string | undefined {
        return this.statements.atTs.get(webhookId, ts) as string | undefined;
    }

    getBody(id: string): StoredBody {
        const row = this.statements.entry.get(id) as EventRow | undefined;
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        const body = this.statements.body.get(row.seq) as BodyRow | undefined;
        const stored: StoredBody = { kind: row.body_kind, contentType: row.content_type, size: row.size };
        if (row.blob_key) stored.blobKey = row.blob_key;
        if (body) stored.raw = body.raw ?? Buffer.from(body.text ?? '', 'utf8');
        else if (row.body_kind === 'empty') stored.raw = Buffer.alloc(0);
        return stored;
    }

    async query(q: LogsQuery): Promise<LogsPage> {
        if (this.pool) return this.pool.run(q);
        const { runLogsQuery } = await import('./query.js');
        return runLogsQuery(this.reader, q);
    }

    readOutbox(limit: number): OutboxItem[] {
        const rows = this.statements.outbox.all(limit) as (EventRow & { b_text: string | null; b_raw: Buffer | null })[];
        return rows.map((r) => {
            const item: OutboxItem = { seq: r.seq, entry: rowToEntry(r, { text: r.b_text, raw: r.b_raw }) };
            if (r.body_kind === 'json' && r.b_text !== null) item.rawText = r.b_text;
            return item;
        });
    }

    async markExported(seq: number, sinkPosition?: string): Promise<void> {
        await this.writer.request(sinkPosition === undefined ? { op: 'exported', upToSeq: seq } : { op: 'exported', upToSeq: seq, sinkPosition });
    }

    getMeta(key: string): string | undefined {
        return this.statements.meta.get(key) as string | undefined;
    }

    async setMeta(key: string, value: string): Promise<void> {
        await this.writer.request({ op: 'setMeta', key, value });
    }

    stats(): StoreStats {
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
            offloadedPayloads: this.statements.offloaded.get() as number,
            databaseBytes,
            durability: this.durability,
        };
    }

    healthy(): boolean {
        if (!this.writer.healthy) return false;
        try {
            this.statements.meta.get('schema_version');
            return true;
        } catch {
            return false;
        }
    }

    async close(): Promise<void> {
        await this.writer.close();
        await this.pool?.close();
        this.reader.close();
    }
}
