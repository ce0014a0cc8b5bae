import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { KeyValueStore } from 'apify';
import { NotFoundError } from '../../errors.js';
import { exponential, type RetrySchedule } from '../../lib/backoff.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { BlobStore, BlobWriter } from '../blob-store.js';
import { FileBlobStore } from '../blob/file-blob-store.js';
import { Deadlines } from './deadline.js';

/** The key-value store's raw record API: the bytes as stored, never parsed by content type. */
export interface RawRecords {
    /** Streams a record's bytes; undefined when the key does not exist. */
    open(key: string): Promise<Readable | undefined>;
}

/**
 * How an upload is retried (the API client cannot retry a stream body itself): six attempts in all,
 * waiting 0.5, 1, 2, 4 and 8 s before the 2nd to the 6th.
 */
export const UPLOAD_RETRIES: RetrySchedule = exponential(6, 500, 8000);

/**
 * Platform blob store. A payload streams to a local spool file (never whole in memory), then the
 * file streams into the key-value store; a failed upload (429, 5xx, reset) is sent again from the
 * spool file. Reads prefer the local copy. In a fresh container (after a migration, or in a new
 * Standby run) the record is fetched through the raw record API into the spool first: `getValue`
 * would parse it by content type and hand back re-serialised JSON or a quoted string.
 */
export class KvBlobStore implements BlobStore {
    private readonly spool: FileBlobStore;
    private readonly downloads = new Map<string, Promise<void>>();

    constructor(
        private readonly kvs: KeyValueStore,
        private readonly raw: RawRecords,
        private readonly spoolDir: string,
        private readonly clock: Pick<Clock, 'sleep'> = systemClock,
        private readonly retries: RetrySchedule = UPLOAD_RETRIES,
        private readonly deadlines: Deadlines = new Deadlines(),
    ) {
        this.spool = new FileBlobStore(spoolDir);
    }

    async create(key: string, contentType: string): Promise<BlobWriter> {
        const local = await this.spool.create(key);
        return {
            write: (chunk) => local.write(chunk),
            abort: () => local.abort(),
            commit: async () => {
                const size = await local.commit();
                try {
                    await this.upload(key, contentType || 'application/octet-stream');
                } catch (error) {
                    // The capture is refused: no spool copy may outlive it as a payload nobody stored.
                    await rm(join(this.spoolDir, `${key}.bin`), { force: true }).catch(() => undefined);
                    throw error;
                }
                return size;
            },
        };
    }

    async read(key: string): Promise<{ stream: Readable; size: number }> {
        try {
            return await this.spool.read(key);
        } catch (error) {
            if (!(error instanceof NotFoundError)) throw error;
        }
        let download = this.downloads.get(key);
        if (!download) {
            download = this.download(key).finally(() => this.downloads.delete(key));
            this.downloads.set(key, download);
        }
        await download;
        return this.spool.read(key);
    }

    async delete(key: string): Promise<void> {
        await this.spool.delete(key);
        await this.deadlines.run('payload delete', 0, () => this.kvs.setValue(key, null));
    }

    private async upload(key: string, contentType: string): Promise<void> {
        const file = join(this.spoolDir, `${key}.bin`);
        const { size } = await stat(file);
        for (let attempt = 1; ; attempt++) {
            try {
                // Each attempt has a deadline scaled by the payload's size (deadline.ts); a stuck one is sent again.
                await this.deadlines.run('payload upload', size, () => this.kvs.setValue(key, createReadStream(file), { contentType }));
                return;
            } catch (error) {
                if (attempt >= this.retries.attempts) throw error;
                await this.clock.sleep(this.retries.backoffMs(attempt));
            }
        }
    }

    /** Copies a record into the spool through a temporary name, so a broken download is never served. */
    private async download(key: string): Promise<void> {
        await mkdir(this.spoolDir, { recursive: true });
        const final = join(this.spoolDir, `${key}.bin`);
        // A name of its own: a download given up on may still be removing its file.
        const temp = `${final}.${randomUUID()}.download`;
        // The size is unknown until the answer comes: each byte received earns its time (deadline.ts),
        // so a large payload that keeps coming is never cut, and a dripping or silent one is.
        await this.deadlines.run('payload read', 0, async (deadline) => {
            const source = await this.raw.open(key);
            if (!source) throw new NotFoundError(`Payload '${key}' not found`);
            source.on('data', (chunk: Buffer) => deadline.moved(chunk.length));
            const { signal } = deadline;
            try {
                await pipeline(source, createWriteStream(temp), { signal });
                await rename(temp, final);
            } catch (error) {
                source.destroy();
                await rm(temp, { force: true });
                throw error;
            }
        });
    }
}
