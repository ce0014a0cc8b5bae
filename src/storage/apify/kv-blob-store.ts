import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { KeyValueStore } from 'apify';
import { Readable } from 'node:stream';
import { NotFoundError } from '../../errors.js';
import type { BlobStore, BlobWriter } from '../blob-store.js';
import { FileBlobStore } from '../blob/file-blob-store.js';

/**
 * Platform blob store: a payload streams to a local spool file (never whole in memory), then the
 * file streams into the run's key-value store. Reads prefer the local copy.
 */
export class KvBlobStore implements BlobStore {
    private readonly spool: FileBlobStore;

    constructor(private readonly kvs: KeyValueStore, private readonly spoolDir: string) {
        this.spool = new FileBlobStore(spoolDir);
    }

    async create(key: string, contentType: string): Promise<BlobWriter> {
        const local = await this.spool.create(key);
        return {
            write: (chunk) => local.write(chunk),
            abort: () => local.abort(),
            commit: async () => {
                const size = await local.commit();
                await this.kvs.setValue(key, createReadStream(join(this.spoolDir, `${key}.bin`)), { contentType: contentType || 'application/octet-stream' });
                return size;
            },
        };
    }

    async read(key: string): Promise<{ stream: Readable; size: number }> {
        try {
            return await this.spool.read(key);
        } catch {
            const value = await this.kvs.getValue<Buffer>(key);
            if (value === null) throw new NotFoundError(`Payload '${key}' not found`);
            const bytes = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
            return { stream: Readable.from([bytes]), size: bytes.length };
        }
    }
}
