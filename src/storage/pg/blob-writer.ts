import type pg from 'pg';
import type { BlobWriter } from '../blob-store.js';
import { storeError } from './pool.js';

/** Bytes per stored chunk row of a blob. */
export const BLOB_CHUNK = 256 * 1024;

/**
 * One blob being written to PostgreSQL: bytes are copied into one chunk-sized buffer, and each full
 * chunk is inserted (its own short statement, so a slow upload holds no connection) before the
 * write that filled it resolves. At most one chunk sits in memory; awaiting the insert is the
 * backpressure. The blob's row stays `complete = false` (unreadable) until commit.
 */
export class PgBlobWriter implements BlobWriter {
    private readonly chunk = Buffer.allocUnsafe(BLOB_CHUNK);
    private filled = 0;
    private chunks = 0;
    private size = 0;
    private state: 'open' | 'failed' | 'committed' | 'aborted' = 'open';
    /** Calls run one after another even if the caller does not wait (abort after a failed write). */
    private tail: Promise<unknown> = Promise.resolve();

    constructor(private readonly pool: pg.Pool, private readonly key: string) {}

    write(bytes: Buffer): Promise<void> {
        return this.serial(async () => {
            this.mustBeOpen();
            for (let offset = 0; offset < bytes.length; ) {
                const taken = bytes.copy(this.chunk, this.filled, offset, Math.min(bytes.length, offset + BLOB_CHUNK - this.filled));
                this.filled += taken;
                this.size += taken;
                offset += taken;
                if (this.filled === BLOB_CHUNK) await this.flush();
            }
        });
    }

    commit(): Promise<number> {
        return this.serial(async () => {
            this.mustBeOpen();
            await this.flush();
            const done = await this.run(() => this.pool.query('UPDATE blobs SET complete = true, size = $2 WHERE key = $1 AND NOT complete', [this.key, this.size]));
            if (done.rowCount !== 1) {
                this.state = 'failed';
                throw this.deleted();
            }
            this.state = 'committed';
            return this.size;
        });
    }

    abort(): Promise<void> {
        const settled = this.tail.catch(() => undefined);
        this.tail = settled.then(async () => {
            if (this.state === 'committed' || this.state === 'aborted') return;
            this.state = 'aborted';
            await this.pool
                .query('WITH gone AS (DELETE FROM blob_chunks WHERE key = $1) DELETE FROM blobs WHERE key = $1 AND NOT complete', [this.key])
                .catch(() => undefined);
        });
        return this.tail as Promise<void>;
    }

    /** Inserts the buffered bytes as the next chunk; the buffer is reused once the insert is done. */
    private async flush(): Promise<void> {
        if (this.filled === 0) return;
        await this.run(async () => {
            try {
                return await this.pool.query('INSERT INTO blob_chunks (key, n, data) VALUES ($1, $2, $3)', [this.key, this.chunks, this.chunk.subarray(0, this.filled)]);
            } catch (error) {
                // The foreign key: the blob was swept or deleted meanwhile.
                if ((error as { code?: string }).code === '23503') throw this.deleted();
                throw error;
            }
        });
        this.chunks++;
        this.filled = 0;
    }

    /** A failed statement leaves the blob unfinishable: the caller aborts it. */
    private async run<T>(statement: () => Promise<T>): Promise<T> {
        try {
            return await statement();
        } catch (error) {
            this.state = 'failed';
            throw storeError(error);
        }
    }

    /** The blob's row went while it was written (deleted, or swept as a dead writer's). */
    private deleted(): Error {
        return new Error(`blob '${this.key}' was deleted while it was written`);
    }

    private mustBeOpen(): void {
        if (this.state !== 'open') throw new Error(`blob '${this.key}' is ${this.state}; it takes no more writes`);
    }

    private serial<T>(step: () => Promise<T>): Promise<T> {
        const next = this.tail.catch(() => undefined).then(step);
        this.tail = next;
        return next;
    }
}
