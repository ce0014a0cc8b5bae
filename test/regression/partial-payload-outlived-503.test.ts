import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { receive } from '../../src/memory/receive-body.js';
import type { BlobWriter } from '../../src/storage/blob-store.js';
import { FileBlobStore } from '../../src/storage/blob/file-blob-store.js';

const MB = 1024 * 1024;

// The disk-full test (test/memory/disk-full) failed on a loaded machine: a `.partial` payload file
// was still there after its 503, and its late deletion freed space for a capture that was to be
// refused. The partial file was deleted in the background after the answer was decided; it must be
// gone before the answer goes out.
describe('regression: the partial file of a refused offloaded payload outlived its 503', () => {
    const dir = mkdtempSync(join(tmpdir(), 'whd-partial-503-'));
    const servers: Server[] = [];
    afterAll(async () => {
        for (const s of servers) {
            s.closeAllConnections();
            await new Promise((r) => s.close(r));
        }
        rmSync(dir, { recursive: true, force: true });
    });

    it('when the payload store refuses a chunk (disk full), the partial file is gone by the time the 503 is decided', async () => {
        const store = new FileBlobStore(dir);
        // The real file store on a disk that takes 1 MB and refuses the rest, as a full disk does.
        const fullDisk = async (): Promise<BlobWriter> => {
            const writer = await store.create('payload-refused');
            let taken = 0;
            return {
                ...writer,
                write: async (chunk) => {
                    if (taken + chunk.length > MB) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
                    taken += chunk.length;
                    await writer.write(chunk);
                },
            };
        };
        const outcome = new Promise<{ status: number; partialsAtAnswer: string[] }>((resolve) => {
            const server = createServer((req, res) => {
                const on = { tooLarge: () => undefined, notStored: () => undefined, busy: () => undefined, stalled: () => undefined };
                const memory = { take: () => false, giveBack: () => undefined };
                receive(req, { max: 64 * MB, threshold: 256 * 1024, blobKey: 'payload-refused', openBlob: fullDisk, idleMs: 0, declared: Number(req.headers['content-length']), memory, spill: true }, on).then(
                    () => resolve({ status: 200, partialsAtAnswer: readdirSync(dir) }),
                    (error: unknown) => {
                        resolve({ status: error instanceof AppError ? error.status : 500, partialsAtAnswer: readdirSync(dir) });
                        // The rest of the body is read and dropped, as the service does after a 503.
                        req.resume();
                    },
                );
                req.on('end', () => res.end()).on('error', () => undefined);
            });
            servers.push(server);
            server.listen(0, '127.0.0.1', () => {
                const body = Buffer.alloc(6 * MB, 'x');
                const client = request({ port: (server.address() as AddressInfo).port, method: 'POST', headers: { 'content-length': body.length } });
                client.on('error', () => undefined).on('response', (r) => r.resume());
                client.end(body);
            });
        });
        const { status, partialsAtAnswer } = await outcome;
        assert.equal(status, 503);
        assert.deepEqual(partialsAtAnswer, [], 'no partial file left when the answer is decided');
        assert.equal(existsSync(join(dir, 'payload-refused.bin')), false);
    });
});
