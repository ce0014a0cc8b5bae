import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type pg from 'pg';
import { describe, it } from 'vitest';
import { NotFoundError, StoreUnavailableError } from '../../src/errors.js';
import { putBlob } from '../../src/storage/blob-store.js';
import type { BlobWriter } from '../../src/storage/blob-store.js';
import { BLOB_DDL, PgBlobStore, sweepPartialBlobs } from '../../src/storage/pg/blob-store.js';
import { migrate } from '../../src/storage/pg/schema.js';
import { BLOB_CHUNK } from '../../src/storage/pg/blob-writer.js';
import { pgTestsRun, usePgServer } from './aux-pg.js';

const MB = 1024 * 1024;

// A full collection before each memory sample, so the figure is what is alive, not garbage.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Two collections a turn apart: freed Buffers leave the count once their background sweep is done. */
async function collect(): Promise<void> {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
}

/**
 * Peak growth over the level at creation, sampled after a full collection: of live memory (V8 heap
 * plus Buffers and other memory outside it) and of the process's RSS. RSS also holds what the
 * allocator and V8's young generation keep after a collection, so it gets a looser bound; both
 * would pass 100 MB if the blob were held whole.
 */
async function memoryWatch(): Promise<{ sample(): Promise<void>; liveGrowth: number; rssGrowth: number }> {
    await collect();
    const base = process.memoryUsage();
    const watch = {
        liveGrowth: 0,
        rssGrowth: 0,
        async sample() {
            await collect();
            const now = process.memoryUsage();
            watch.liveGrowth = Math.max(watch.liveGrowth, now.heapUsed + now.external - base.heapUsed - base.external);
            watch.rssGrowth = Math.max(watch.rssGrowth, now.rss - base.rss);
        },
    };
    return watch;
}

async function readAll(store: PgBlobStore, key: string): Promise<Buffer> {
    const { stream } = await store.read(key);
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    return Buffer.concat(parts);
}

const count = async (pool: pg.Pool, sql: string, key: string): Promise<number> => Number((await pool.query<{ c: string }>(sql, [key])).rows[0]!.c);
const chunkRows = (pool: pg.Pool, key: string): Promise<number> => count(pool, 'SELECT count(*) AS c FROM blob_chunks WHERE key = $1', key);

describe.skipIf(!pgTestsRun)('PgBlobStore', () => {
    const pgx = usePgServer('own');

    it('streams a 100 MB blob both ways without holding it in memory (live memory growth < 16 MB, RSS < 64 MB), byte-exact', async () => {
        const pool = pgx.pool(await pgx.database(BLOB_DDL));
        const store = new PgBlobStore(pool);
        const piece = Buffer.alloc(64 * 1024);
        const written = createHash('sha256');
        const memory = await memoryWatch();
        const writer = await store.create('payload-big', 'application/octet-stream');
        for (let i = 0; i < (100 * MB) / piece.length; i++) {
            // The same buffer refilled: the store must copy what it keeps.
            randomFillSync(piece);
            written.update(piece);
            await writer.write(piece);
            if (i % 64 === 0) await memory.sample();
        }
        assert.equal(await writer.commit(), 100 * MB);
        await memory.sample();

        const { stream, size } = await store.read('payload-big');
        assert.equal(size, 100 * MB);
        const read = createHash('sha256');
        let bytes = 0;
        let sinceSample = 0;
        for await (const part of stream) {
            read.update(part as Buffer);
            bytes += (part as Buffer).length;
            if ((sinceSample += (part as Buffer).length) >= 4 * MB) (sinceSample = 0, await memory.sample());
        }
        await memory.sample();
        assert.equal(bytes, 100 * MB);
        assert.equal(read.digest('hex'), written.digest('hex'));
        console.log(`100 MB blob written and read: peak live memory growth ${(memory.liveGrowth / MB).toFixed(1)} MB, peak RSS growth ${(memory.rssGrowth / MB).toFixed(1)} MB`);
        assert.ok(memory.liveGrowth < 16 * MB, `live memory grew ${(memory.liveGrowth / MB).toFixed(1)} MB`);
        assert.ok(memory.rssGrowth < 64 * MB, `RSS grew ${(memory.rssGrowth / MB).toFixed(1)} MB`);
        assert.equal(await chunkRows(pool, 'payload-big'), 400);
    }, 300_000);

    it('keeps a blob unreadable until commit, then serves it with its size (empty, one byte short of a chunk, several chunks)', async () => {
        const store = new PgBlobStore(pgx.pool(await pgx.database(BLOB_DDL)));
        for (const length of [0, BLOB_CHUNK - 1, 2 * BLOB_CHUNK + 10]) {
            const bytes = randomFillSync(Buffer.alloc(length));
            const key = `payload-${length}`;
            const writer = await store.create(key, 'application/octet-stream');
            await writer.write(bytes.subarray(0, Math.floor(length / 2)));
            await assert.rejects(store.read(key), NotFoundError);
            await writer.write(bytes.subarray(Math.floor(length / 2)));
            assert.equal(await writer.commit(), length);
            assert.equal((await store.read(key)).size, length);
            assert.ok((await readAll(store, key)).equals(bytes));
        }
    });

    it('abort deletes the partial blob and its chunks', async () => {
        const pool = pgx.pool(await pgx.database(BLOB_DDL));
        const store = new PgBlobStore(pool);
        const writer = await store.create('payload-partial', 'text/plain');
        await writer.write(Buffer.alloc(3 * BLOB_CHUNK, 1));
        assert.equal(await chunkRows(pool, 'payload-partial'), 3);
        await writer.abort();
        assert.equal(await chunkRows(pool, 'payload-partial'), 0);
        assert.equal(await count(pool, 'SELECT count(*) AS c FROM blobs WHERE key = $1', 'payload-partial'), 0);
        await assert.rejects(store.read('payload-partial'), NotFoundError);
        await assert.rejects(writer.write(Buffer.from('more')), /aborted/);
    });

    it('delete removes the blob and its chunks; an unknown key is NotFound to read and fine to delete', async () => {
        const pool = pgx.pool(await pgx.database(BLOB_DDL));
        const store = new PgBlobStore(pool);
        await putBlob(store, 'payload-a', 'text/plain', Buffer.alloc(BLOB_CHUNK + 1, 7));
        await store.delete('payload-a');
        assert.equal(await chunkRows(pool, 'payload-a'), 0);
        await assert.rejects(store.read('payload-a'), NotFoundError);
        await assert.rejects(store.read('payload-never'), NotFoundError);
        await store.delete('payload-never');
    });

    it('writing a key again replaces its bytes', async () => {
        const store = new PgBlobStore(pgx.pool(await pgx.database(BLOB_DDL)));
        await putBlob(store, 'payload-x', 'text/plain', Buffer.alloc(3 * BLOB_CHUNK, 1));
        await putBlob(store, 'payload-x', 'text/plain', Buffer.from('short'));
        assert.equal((await readAll(store, 'payload-x')).toString(), 'short');
    });

    it('a blob deleted while it is read fails the stream instead of ending it short', async () => {
        const store = new PgBlobStore(pgx.pool(await pgx.database(BLOB_DDL)));
        await putBlob(store, 'payload-gone', 'text/plain', Buffer.alloc(12 * BLOB_CHUNK, 2));
        // Read through one iterator: it pulls (no chunk flows past unseen) and takes the stream's error.
        const parts = (await store.read('payload-gone')).stream[Symbol.asyncIterator]();
        assert.ok(Buffer.isBuffer((await parts.next()).value));
        await store.delete('payload-gone');
        await assert.rejects(async () => {
            while (!(await parts.next()).done);
        }, NotFoundError);
    });

    it('a read cut by a lost database fails its stream with StoreUnavailableError; a stream dropped early leaves no error behind', async () => {
        const store = new PgBlobStore(pgx.pool(await pgx.database(BLOB_DDL)));
        const bytes = randomFillSync(Buffer.alloc(12 * BLOB_CHUNK));
        await putBlob(store, 'payload-cut', 'application/octet-stream', bytes);
        const dropped = (await store.read('payload-cut')).stream[Symbol.asyncIterator]();
        await dropped.next();
        // Destroys the stream while its next batch is being fetched.
        await dropped.return?.();
        const parts = (await store.read('payload-cut')).stream[Symbol.asyncIterator]();
        await parts.next();
        await pgx.server.pause();
        try {
            await assert.rejects(async () => {
                while (!(await parts.next()).done);
            }, StoreUnavailableError);
        } finally {
            await pgx.server.resume();
        }
        assert.ok((await readAll(store, 'payload-cut')).equals(bytes));
    });

    it('answers StoreUnavailableError, never a raw pg error, while the database is away, and works again after', async () => {
        const pool = pgx.pool(await pgx.database(BLOB_DDL));
        const store = new PgBlobStore(pool);
        await putBlob(store, 'payload-kept', 'text/plain', Buffer.from('kept'));
        const writer = await store.create('payload-during', 'text/plain');
        await pgx.server.pause();
        try {
            await assert.rejects(store.read('payload-kept'), StoreUnavailableError);
            await assert.rejects(store.create('payload-new', 'text/plain'), StoreUnavailableError);
            await assert.rejects(store.delete('payload-kept'), StoreUnavailableError);
            await assert.rejects(writer.write(Buffer.alloc(BLOB_CHUNK)), StoreUnavailableError);
            await writer.abort();
        } finally {
            await pgx.server.resume();
        }
        assert.equal((await readAll(store, 'payload-kept')).toString(), 'kept');
    });

    it('a sweep deletes the partial blobs of instances that stopped beating, with their chunks; a live writer\'s, its own, complete ones and a fresh unowned one stay; a day-old partial goes whoever writes it', async () => {
        const pool = pgx.pool(await pgx.database([]));
        await migrate(pool);
        await pool.query(`INSERT INTO instances (id, seen_at) VALUES ('me', now()), ('live', now()), ('dead', now() - interval '30 seconds')`);
        const partial = async (owner: string | null, key: string): Promise<BlobWriter> => {
            const writer = await new PgBlobStore(pool, owner).create(key, 'application/octet-stream');
            await writer.write(Buffer.alloc(2 * BLOB_CHUNK + 5, 3));
            return writer;
        };
        await partial('dead', 'payload-dead');
        await partial('gone', 'payload-unknown-owner');
        const live = await partial('live', 'payload-live');
        const mine = await partial('me', 'payload-mine');
        await partial(null, 'payload-unowned-fresh');
        await partial(null, 'payload-unowned-old');
        await partial('live', 'payload-live-old');
        await pool.query(`UPDATE blobs SET started_at = now() - interval '2 hours' WHERE key = 'payload-unowned-old'`);
        await pool.query(`UPDATE blobs SET started_at = now() - interval '25 hours' WHERE key = 'payload-live-old'`);
        await putBlob(new PgBlobStore(pool, 'dead'), 'payload-done', 'text/plain', Buffer.alloc(BLOB_CHUNK + 1, 9));

        assert.equal(await sweepPartialBlobs(pool, 'me', 10), 4);
        const keys = (await pool.query<{ key: string }>('SELECT key FROM blobs ORDER BY key')).rows.map((r) => r.key);
        assert.deepEqual(keys, ['payload-done', 'payload-live', 'payload-mine', 'payload-unowned-fresh']);
        const chunked = (await pool.query<{ key: string }>('SELECT DISTINCT key FROM blob_chunks ORDER BY key')).rows.map((r) => r.key);
        assert.deepEqual(chunked, keys, 'no chunk outlives its blob');
        // What stayed is still whole: the live writers finish, the complete blob reads back.
        await live.write(Buffer.from('end'));
        assert.equal(await live.commit(), 2 * BLOB_CHUNK + 8);
        assert.equal(await mine.commit(), 2 * BLOB_CHUNK + 5);
        assert.ok((await readAll(new PgBlobStore(pool), 'payload-done')).equals(Buffer.alloc(BLOB_CHUNK + 1, 9)));
        assert.equal(await sweepPartialBlobs(pool, 'me', 10), 0);
    });

    it('a writer whose blob was swept or deleted under it fails its next chunk and its commit, and leaves no chunk behind', async () => {
        const pool = pgx.pool(await pgx.database(BLOB_DDL));
        const store = new PgBlobStore(pool, 'w1');
        const writer = await store.create('payload-swept', 'text/plain');
        await writer.write(Buffer.alloc(BLOB_CHUNK, 1));
        await pool.query(`DELETE FROM blobs WHERE key = 'payload-swept'`);
        assert.equal(await chunkRows(pool, 'payload-swept'), 0, 'the chunks went with the blob');
        await assert.rejects(writer.write(Buffer.alloc(BLOB_CHUNK, 2)), /deleted while it was written/);
        assert.equal(await chunkRows(pool, 'payload-swept'), 0);
        const second = await store.create('payload-swept-2', 'text/plain');
        await second.write(Buffer.from('short, still buffered'));
        await pool.query(`DELETE FROM blobs WHERE key = 'payload-swept-2'`);
        await assert.rejects(second.commit(), /deleted while it was written/);
        assert.equal(await chunkRows(pool, 'payload-swept-2'), 0);
        await assert.rejects(store.read('payload-swept-2'), NotFoundError);
    });

    it('the migration removes chunks an older version left without a blob and ties chunks to their blob, and runs again harmlessly', async () => {
        // The tables as the version before owners and the foreign key made them.
        const pool = pgx.pool(await pgx.database(BLOB_DDL.slice(0, 2)));
        await pool.query(`INSERT INTO blobs (key, size, complete) VALUES ('payload-kept', 3, true)`);
        await pool.query(`INSERT INTO blob_chunks (key, n, data) VALUES ('payload-kept', 0, '\\x616263'), ('payload-orphan', 0, '\\x00'), ('payload-orphan', 1, '\\x01')`);
        await migrate(pool);
        await migrate(pool);
        assert.equal(await chunkRows(pool, 'payload-orphan'), 0);
        assert.equal((await readAll(new PgBlobStore(pool), 'payload-kept')).toString(), 'abc');
        await assert.rejects(pool.query(`INSERT INTO blob_chunks (key, n, data) VALUES ('payload-none', 0, '\\x00')`), /foreign key/);
    });
});
