import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { KeyValueStore } from 'apify';
import { afterEach, describe, it } from 'vitest';
import { KvBlobStore, UPLOAD_RETRIES } from '../../src/storage/apify/kv-blob-store.js';
import { ManualClock } from '../helpers/clock.js';

const dirs: string[] = [];
afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A key-value store whose first `failures` uploads fail after reading the stream. */
function flakyKvs(failures: number): { kvs: KeyValueStore; uploads: string[] } {
    const uploads: string[] = [];
    const setValue = async (_key: string, stream: Readable): Promise<void> => {
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        uploads.push(Buffer.concat(chunks).toString());
        if (uploads.length <= failures) throw new Error('503 from the API');
    };
    return { kvs: { setValue } as unknown as KeyValueStore, uploads };
}

async function store(failures: number): Promise<{ blobs: KvBlobStore; clock: ManualClock; uploads: string[] }> {
    const dir = await mkdtemp(join(tmpdir(), 'kv-blob-'));
    dirs.push(dir);
    const clock = new ManualClock();
    const { kvs, uploads } = flakyKvs(failures);
    return { blobs: new KvBlobStore(kvs, { open: async () => undefined }, dir, clock), clock, uploads };
}

describe('KvBlobStore upload retries', () => {
    it('the shared schedule: six attempts, waiting 0.5, 1, 2, 4, 8 s', () => {
        assert.equal(UPLOAD_RETRIES.attempts, 6);
        assert.deepEqual([1, 2, 3, 4, 5].map((n) => UPLOAD_RETRIES.backoffMs(n)), [500, 1000, 2000, 4000, 8000]);
    });

    it('sends the spooled file again after each failure, sleeping on the injected clock', async () => {
        const { blobs, clock, uploads } = await store(2);
        const writer = await blobs.create('payload-a', 'text/plain');
        await writer.write(Buffer.from('hello'));
        const committed = writer.commit();
        await clock.whenSleeping();
        clock.advance(499);
        assert.equal(clock.pendingSleeps, 1, 'the first retry waits 500 ms');
        clock.advance(1);
        await clock.whenSleeping();
        clock.advance(1000);
        assert.equal(await committed, 5);
        assert.deepEqual(uploads, ['hello', 'hello', 'hello']);
    });

    it('gives up with the last error when every attempt fails', async () => {
        const { blobs, clock, uploads } = await store(Infinity);
        const writer = await blobs.create('payload-b', '');
        await writer.write(Buffer.from('x'));
        const committed = writer.commit();
        const outcome = assert.rejects(committed, /503 from the API/);
        for (const ms of [500, 1000, 2000, 4000, 8000]) {
            await clock.whenSleeping();
            clock.advance(ms);
        }
        await outcome;
        assert.equal(uploads.length, 6);
        assert.equal(clock.pendingSleeps, 0);
    });
});
