import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, it } from 'vitest';
import { PAYLOAD_STORE } from '../../src/storage/blob/local-payloads.js';
import { diagnostic } from '../helpers/diagnostic.js';
import { pgPass, storageEnv } from '../helpers/pg-pass.js';
import { listAllLogs, payloadOf, removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

const MB = 1024 * 1024;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * What a killed process left half written, in the backend of this pass: `.partial` files of the
 * local payload folder, or PostgreSQL blobs not complete and their chunks.
 */
async function halfWritten(dir: string): Promise<{ blobs: number; chunks: number }> {
    if (!pgPass) {
        const names = await readdir(join(dir, 'key_value_stores', PAYLOAD_STORE)).catch(() => [] as string[]);
        return { blobs: names.filter((n) => n.endsWith('.partial')).length, chunks: 0 };
    }
    const client = new pg.Client({ connectionString: (await storageEnv(dir)).DATABASE_URL });
    await client.connect();
    try {
        const { rows } = await client.query<{ blobs: string; chunks: string }>(
            'SELECT (SELECT count(*) FROM blobs WHERE NOT complete) AS blobs, (SELECT count(*) FROM blob_chunks c JOIN blobs b USING (key) WHERE NOT b.complete) AS chunks');
        return { blobs: Number(rows[0]!.blobs), chunks: Number(rows[0]!.chunks) };
    } finally {
        await client.end();
    }
}

describe(`SIGKILL in the middle of a large upload (${pgPass ? 'PostgreSQL' : 'local storage'})`, () => {
    let svc: ServiceProcess | undefined;
    let dir: string | undefined;
    afterAll(async () => {
        await svc?.stop();
        if (dir) await removeDir(dir);
    });

    it('the half-written payload the killed process left is deleted once the service is back, and large uploads work after', async () => {
        // Bodies past the offload threshold (5 MB) go to the payload store as they arrive.
        const input = { urlCount: 1, maxPayloadSize: 64 * MB };
        svc = await startServiceProcess({ input });
        dir = svc.dir;
        const [webhookId] = await webhookIds(svc);

        // An upload of 24 MB announced, 10 MB sent, then the process is killed mid-body.
        const upload = request(`${svc.url}/webhook/${webhookId}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': String(24 * MB) } });
        upload.on('error', () => undefined);
        for (let i = 0; i < 10; i++) upload.write(randomBytes(MB));
        const left = await until('the upload being written to the payload store', async () => {
            const now = await halfWritten(dir!);
            return now.blobs > 0 && (!pgPass || now.chunks >= 4) ? now : undefined;
        });
        diagnostic(`half written before the kill: ${JSON.stringify(left)}`);
        svc.signal('SIGKILL');
        assert.equal((await svc.exited).signal, 'SIGKILL');
        upload.destroy();
        const leftAtKill = await halfWritten(dir);
        assert.equal(leftAtKill.blobs, left.blobs, 'the killed process left its upload half written');
        // Chunks written between the look and the kill are there too.
        assert.ok(leftAtKill.chunks >= left.chunks, JSON.stringify(leftAtKill));

        svc = await startServiceProcess({ dir, input });
        // Local storage sweeps at start; PostgreSQL once the new instance has beaten for the dead
        // time (10 s) and the killed one has been silent as long.
        const swept = Date.now();
        await until('the half-written payload swept', async () => ((await halfWritten(dir!)).blobs === 0 ? true : undefined), { timeoutMs: 40_000, intervalMs: 250 });
        diagnostic(`swept ${Date.now() - swept} ms after the restart was ready`);
        assert.deepEqual(await halfWritten(dir), { blobs: 0, chunks: 0 });

        // The store still takes and serves large bodies, byte for byte.
        const body = randomBytes(6 * MB + 17);
        const res = await svc.fetch(`/webhook/${webhookId}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
        assert.equal(res.status, 200, await res.text());
        const requestId = res.headers.get('x-request-id');
        const listed = (await listAllLogs(svc)).find((item) => item.requestId === requestId);
        assert.ok(listed, 'the new upload is listed');
        assert.equal(sha256(await payloadOf(svc, listed.id)), sha256(body));
        assert.deepEqual(await halfWritten(dir), { blobs: 0, chunks: 0 });
    }, 120_000);
});
