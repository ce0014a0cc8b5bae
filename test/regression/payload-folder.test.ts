import assert from 'node:assert/strict';
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startTestService } from '../helpers/service.js';

// Issue 9, item 7: the SDK's local key-value store client reads every file of the store it opens.
// Payloads used to live in the default store (opened at start for INPUT and the webhook list), so
// every restart read all of them. They now live in key_value_stores/webhook-payloads.

const send = async (url: string, body: Buffer): Promise<string> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    return res.headers.get('x-request-id')!;
};

describe('regression: a restart read every offloaded payload', () => {
    it('keeps payloads out of the default store, moves old ones over at start, and serves every one', async () => {
        const overrides = { offloadThreshold: 1024 };
        const first = await startTestService({ input: { urlCount: 1 }, overrides });
        const payloads = [Buffer.alloc(4096, 1), Buffer.alloc(8192, 2), Buffer.alloc(2048, 3)];
        const byRequest = new Map<string, Buffer>();
        for (const p of payloads) byRequest.set(await send(`${first.url}/webhook/${first.webhookId}`, p), p);
        const list = (await (await first.fetch('/logs')).json()) as { items: { id: string; requestId: string }[] };
        await first.close({ keepDir: true });
        const defaultStore = join(first.dir, 'key_value_stores', 'default');
        const payloadStore = join(first.dir, 'key_value_stores', 'webhook-payloads');
        try {
            let files = await readdir(payloadStore);
            assert.equal(files.filter((f) => f.startsWith('payload-')).length, 3, 'new payloads go to the payload store');
            assert.deepEqual((await readdir(defaultStore)).filter((f) => f.startsWith('payload-')), []);

            // The layout of an older version: payloads in the default store.
            for (const f of files) await rename(join(payloadStore, f), join(defaultStore, f));
            const second = await startTestService({ dir: first.dir, input: { urlCount: 1 }, overrides });
            try {
                assert.deepEqual((await readdir(defaultStore)).filter((f) => f.startsWith('payload-')), [], 'moved out before the default store opened');
                files = await readdir(payloadStore);
                assert.equal(files.length, 3);
                // One payload left behind (a move that failed) is still served from the old folder.
                await rename(join(payloadStore, files[0]!), join(defaultStore, files[0]!));
                for (const item of list.items) {
                    const res = await second.fetch(`/logs/${item.id}/payload`);
                    assert.equal(res.status, 200);
                    assert.deepEqual(Buffer.from(await res.arrayBuffer()), byRequest.get(item.requestId), `payload of ${item.id}`);
                }
            } finally {
                await second.close({ keepDir: true });
            }
        } finally {
            await rm(first.dir, { recursive: true, force: true });
        }
    });
});
