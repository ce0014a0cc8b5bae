import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../errors.js';
import type { BlobStore, BlobWriter } from '../blob-store.js';

const SAFE_KEY = /^[A-Za-z0-9_.-]{1,200}$/;

/** A payload being written is `<key>.bin<PARTIAL_SUFFIX>` until it commits. */
export const PARTIAL_SUFFIX = '.partial';

/**
 * Blobs as files in a key-value store folder of the local storage (`<key>.bin`), written through a
 * temporary name, fsynced, then renamed, so a crash never leaves a half blob under a real key.
 * Reads fall back to `legacyDir`, where an older version kept them.
 */
export class FileBlobStore implements BlobStore {
    constructor(private readonly dir: string, private readonly legacyDir?: string) {}

    async create(key: string): Promise<BlobWriter> {
        if (!SAFE_KEY.test(key)) throw new Error(`unsafe blob key: ${key}`);
        await mkdir(this.dir, { recursive: true });
        const final = join(this.dir, `${key}.bin`);
        const temp = `${final}${PARTIAL_SUFFIX}`;
        const handle = await open(temp, 'w');
        let written = 0;
        let closed = false;
        const close = async (): Promise<void> => {
            if (closed) return;
            closed = true;
            await handle.close();
        };
        return {
            write: async (chunk) => {
                // A nearly full disk takes part of a write and refuses the rest only on the next
                // call: a short write is carried on, never taken for the whole chunk.
                for (let offset = 0; offset < chunk.length; ) {
                    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
                    if (bytesWritten <= 0) throw Object.assign(new Error('no space left for the payload'), { code: 'ENOSPC' });
                    offset += bytesWritten;
                }
                written += chunk.length;
            },
            commit: async () => {
                await handle.sync();
                await close();
                await rename(temp, final);
                return written;
            },
            abort: async () => {
                await close().catch(() => undefined);
                await rm(temp, { force: true }).catch(() => undefined);
            },
        };
    }

    async delete(key: string): Promise<void> {
        if (!SAFE_KEY.test(key)) return;
        for (const dir of this.legacyDir === undefined ? [this.dir] : [this.dir, this.legacyDir]) await rm(join(dir, `${key}.bin`), { force: true });
    }

    async read(key: string): Promise<{ stream: NodeJS.ReadableStream & import('node:stream').Readable; size: number }> {
        if (!SAFE_KEY.test(key)) throw new NotFoundError(`Payload '${key}' not found`);
        for (const dir of this.legacyDir === undefined ? [this.dir] : [this.dir, this.legacyDir]) {
            const file = join(dir, `${key}.bin`);
            const info = await stat(file).catch(() => undefined);
            if (info) return { stream: createReadStream(file), size: info.size };
        }
        throw new NotFoundError(`Payload '${key}' not found`);
    }
}
