import { Readable } from 'node:stream';
import type pg from 'pg';
import { NotFoundError } from '../../errors.js';
import type { BlobStore, BlobWriter } from '../blob-store.js';
import { BLOB_CHUNK, PgBlobWriter } from './blob-writer.js';
import { storeError } from './pool.js';
import { guarded } from './unavailable.js';

/** Tables of PgBlobStore; the migration runs them (idempotent). */
export const BLOB_DDL: string[] = [
    'CREATE TABLE IF NOT EXISTS blobs (key text PRIMARY KEY, content_type text, size bigint NOT NULL DEFAULT 0, complete boolean NOT NULL DEFAULT false)',
    'CREATE TABLE IF NOT EXISTS blob_chunks (key text NOT NULL, n int NOT NULL, data bytea NOT NULL, PRIMARY KEY (key, n))',
];

/** Chunks fetched per round trip while a blob is read (512 KB). */
const READ_BATCH = 2;

/**
 * Large payloads in PostgreSQL, in 256 KB chunk rows, streamed both ways: a 100 MB body is never
 * whole in memory. A blob is visible only once its writer commits.
 */
export class PgBlobStore implements BlobStore {
    constructor(private readonly pool: pg.Pool) {}

    async create(key: string, contentType: string): Promise<BlobWriter> {
        // Writing a key again replaces it: the old chunks go and the row is unreadable until commit.
        await guarded(() =>
            this.pool.query(
                `WITH gone AS (DELETE FROM blob_chunks WHERE key = $1)
                 INSERT INTO blobs (key, content_type, size, complete) VALUES ($1, $2, 0, false)
                 ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, size = 0, complete = false`,
                [key, contentType],
            ),
        );
        return new PgBlobWriter(this.pool, key);
    }

    async read(key: string): Promise<{ stream: Readable; size: number }> {
        const { rows } = await guarded(() => this.pool.query<{ size: string; complete: boolean }>('SELECT size, complete FROM blobs WHERE key = $1', [key]));
        const row = rows[0];
        if (!row?.complete) throw new NotFoundError(`Payload '${key}' not found`);
        const size = Number(row.size);
        return { stream: new ChunkStream(this.pool, key, size), size };
    }

    async delete(key: string): Promise<void> {
        await guarded(() => this.pool.query('WITH gone AS (DELETE FROM blob_chunks WHERE key = $1) DELETE FROM blobs WHERE key = $1', [key]));
    }
}

/**
 * A committed blob's bytes, fetched a few chunks at a time as the consumer reads. Each `_read`
 * pushes exactly one chunk (from the fetched batch, or after fetching the next one).
 */
class ChunkStream extends Readable {
    private readonly total: number;
    private next = 0;
    private bytes = 0;
    private batch: Buffer[] = [];

    constructor(private readonly pool: pg.Pool, private readonly key: string, private readonly size: number) {
        super();
        this.total = Math.ceil(size / BLOB_CHUNK);
    }

    override _read(): void {
        const ready = this.batch.shift();
        if (ready) {
            this.push(ready);
            return;
        }
        if (this.next >= this.total) {
            this.push(null);
            return;
        }
        this.fetch().then(
            () => !this.destroyed && this.push(this.batch.shift() ?? null),
            (error: unknown) => this.destroy(storeError(error) as Error),
        );
    }

    private async fetch(): Promise<void> {
        const from = this.next;
        const to = Math.min(from + READ_BATCH, this.total);
        const { rows } = await this.pool.query<{ n: number; data: Buffer }>('SELECT n, data FROM blob_chunks WHERE key = $1 AND n >= $2 AND n < $3 ORDER BY n', [this.key, from, to]);
        // Fewer chunks than committed, or a different total: the blob was deleted or replaced meanwhile.
        if (rows.length !== to - from || rows.some((row, i) => row.n !== from + i)) throw new NotFoundError(`Payload '${this.key}' was deleted while it was read`);
        this.next = to;
        for (const row of rows) this.bytes += row.data.length;
        if (to === this.total && this.bytes !== this.size) throw new NotFoundError(`Payload '${this.key}' was replaced while it was read`);
        this.batch = rows.map((row) => row.data);
    }
}
