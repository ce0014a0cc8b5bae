import { Readable } from 'node:stream';
import type pg from 'pg';
import { NotFoundError } from '../../errors.js';
import type { BlobStore, BlobWriter } from '../blob-store.js';
import { BLOB_CHUNK, PgBlobWriter } from './blob-writer.js';
import { storeError } from './pool.js';
import { guarded } from './pool.js';

/** Tables of PgBlobStore; the migration runs them (idempotent). */
export const BLOB_DDL: string[] = [
    'CREATE TABLE IF NOT EXISTS blobs (key text PRIMARY KEY, content_type text, size bigint NOT NULL DEFAULT 0, complete boolean NOT NULL DEFAULT false)',
    'CREATE TABLE IF NOT EXISTS blob_chunks (key text NOT NULL, n int NOT NULL, data bytea NOT NULL, PRIMARY KEY (key, n))',
    // Who writes a blob not yet complete, and since when, so a dead writer's blob can be swept.
    'ALTER TABLE blobs ADD COLUMN IF NOT EXISTS owner text',
    'ALTER TABLE blobs ADD COLUMN IF NOT EXISTS started_at timestamptz NOT NULL DEFAULT now()',
    'CREATE INDEX IF NOT EXISTS blobs_partial ON blobs (started_at) WHERE NOT complete',
    // A chunk belongs to its blob: deleting the blob deletes its chunks in the same statement, and a
    // chunk written for a blob already deleted is refused (no chunk can outlive its blob). Chunks
    // left without a blob by an older version go first.
    `DO $$ BEGIN
        IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'blob_chunks_blob') THEN
            DELETE FROM blob_chunks c WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.key = c.key);
            ALTER TABLE blob_chunks ADD CONSTRAINT blob_chunks_blob FOREIGN KEY (key) REFERENCES blobs (key) ON DELETE CASCADE;
        END IF;
    END $$`,
];

/** After this long a blob not complete is swept whoever writes it: no upload takes a day. */
const PARTIAL_MAX_AGE = '1 day';
/** A blob with no owner (written before owners were recorded) is swept once this old. */
const UNOWNED_MAX_AGE = '1 hour';

/**
 * Deletes the blobs a writer began and will never finish: its instance stopped beating for
 * `deadAfterS` (SIGKILL mid-upload leaves its chunks behind, up to the whole body), or it is older
 * than PARTIAL_MAX_AGE. $1 is the sweeping instance, whose own uploads are alive by definition.
 * The chunks go with their blob (the foreign key). Returns how many blobs went.
 */
export async function sweepPartialBlobs(pool: pg.Pool, instanceId: string, deadAfterS: number): Promise<number> {
    const { rowCount } = await pool.query(
        `DELETE FROM blobs b WHERE NOT complete AND (
            started_at < now() - interval '${PARTIAL_MAX_AGE}'
            OR (owner IS NULL AND started_at < now() - interval '${UNOWNED_MAX_AGE}')
            OR (owner <> $1 AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = b.owner AND i.seen_at >= now() - make_interval(secs => $2))))`,
        [instanceId, deadAfterS],
    );
    return rowCount ?? 0;
}

/** Chunks fetched per round trip while a blob is read (512 KB). */
const READ_BATCH = 2;

/**
 * Large payloads in PostgreSQL, in 256 KB chunk rows, streamed both ways: a 100 MB body is never
 * whole in memory. A blob is visible only once its writer commits.
 */
export class PgBlobStore implements BlobStore {
    /** `owner`: the instance whose uploads these are (sweepPartialBlobs), none in a store of its own. */
    constructor(private readonly pool: pg.Pool, private readonly owner: string | null = null) {}

    async create(key: string, contentType: string): Promise<BlobWriter> {
        // Writing a key again replaces it: the old chunks go and the row is unreadable until commit.
        await guarded(() =>
            this.pool.query(
                `WITH gone AS (DELETE FROM blob_chunks WHERE key = $1)
                 INSERT INTO blobs (key, content_type, size, complete, owner, started_at) VALUES ($1, $2, 0, false, $3, now())
                 ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, size = 0, complete = false, owner = excluded.owner, started_at = now()`,
                [key, contentType, this.owner],
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
 * A committed blob's bytes, fetched a few chunks at a time as the consumer reads, the next batch
 * on its way while the consumer takes the current one (so at most two batches are held). Each
 * `_read` pushes exactly one chunk.
 */
class ChunkStream extends Readable {
    private readonly total: number;
    /** The first chunk not yet asked for. */
    private next = 0;
    private received = 0;
    private bytes = 0;
    private batch: Buffer[] = [];
    private ahead: Promise<Buffer[]> | undefined;

    constructor(private readonly pool: pg.Pool, private readonly key: string, private readonly size: number) {
        super();
        this.total = Math.ceil(size / BLOB_CHUNK);
    }

    override _read(): void {
        const ready = this.batch.shift();
        if (ready) return void this.push(ready);
        if (this.received >= this.total) return void this.push(null);
        const coming = this.ahead ?? this.fetchNext();
        this.ahead = undefined;
        coming.then(
            (chunks) => {
                if (this.destroyed) return;
                this.received += chunks.length;
                for (const chunk of chunks) this.bytes += chunk.length;
                // A different total than committed: the blob was replaced meanwhile.
                if (this.received === this.total && this.bytes !== this.size) return void this.destroy(new NotFoundError(`Payload '${this.key}' was replaced while it was read`));
                this.batch = chunks;
                if (this.next < this.total) this.ahead = this.fetchNext();
                this.push(this.batch.shift() ?? null);
            },
            (error: unknown) => this.destroy(storeError(error) as Error),
        );
    }

    private fetchNext(): Promise<Buffer[]> {
        const from = this.next;
        const to = Math.min(from + READ_BATCH, this.total);
        this.next = to;
        const fetched = this.fetch(from, to);
        // Settled when it is taken; a stream destroyed before that must not leave it unhandled.
        fetched.catch(() => undefined);
        return fetched;
    }

    private async fetch(from: number, to: number): Promise<Buffer[]> {
        const { rows } = await this.pool.query<{ n: number; data: Buffer }>('SELECT n, data FROM blob_chunks WHERE key = $1 AND n >= $2 AND n < $3 ORDER BY n', [this.key, from, to]);
        // Fewer chunks than committed: the blob was deleted or replaced meanwhile.
        if (rows.length !== to - from || rows.some((row, i) => row.n !== from + i)) throw new NotFoundError(`Payload '${this.key}' was deleted while it was read`);
        return rows.map((row) => row.data);
    }
}
