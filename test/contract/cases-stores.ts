import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import type { BlobStore } from '../../src/storage/blob-store.js';
import type { Webhook } from '../../src/storage/types.js';
import type { WebhookStore } from '../../src/storage/webhook-store.js';
import type { ContractContext } from './contract.js';

const webhook = (id: string, updatedAt: number, over: Partial<Webhook> = {}): Webhook => ({
    id, createdAt: new Date(1_700_000_000_000).toISOString(), expiresAt: new Date(1_800_000_000_000).toISOString(), updatedAt, ...over,
});

function webhooksOf(ctx: ContractContext): WebhookStore {
    const store = ctx.storage().webhooks;
    assert.ok(store, 'the storage keeps webhooks');
    return store;
}

function blobsOf(ctx: ContractContext): BlobStore {
    const store = ctx.storage().blobs;
    assert.ok(store, 'the storage keeps blobs');
    return store;
}

async function readAll(blobs: BlobStore, key: string): Promise<{ bytes: Buffer; size: number }> {
    const { stream, size } = await blobs.read(key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
    return { bytes: Buffer.concat(chunks), size };
}

/** WebhookStore and BlobStore, where the backend (or its mode's companion store) keeps them. */
export function storeCases(ctx: ContractContext, has: { webhooks: boolean; blobs: boolean }): void {
    if (has.webhooks) describe('WebhookStore', () => {
        it('create, get, list, update (the newer record) and delete, one record per webhook', async () => {
            const store = webhooksOf(ctx);
            assert.deepEqual(await store.list(), []);
            const a = webhook('whA', 1000, { name: 'first', response: { statusCode: 202, body: 'ok', headers: { 'x-a': '1' } } });
            await store.create(a);
            await store.create(webhook('whB', 1000));
            assert.deepEqual(await store.get('whA'), a);
            assert.deepEqual((await store.list()).map((w) => w.id).sort(), ['whA', 'whB']);
            const renamed = { ...a, name: 'renamed', updatedAt: 2000 };
            await store.update(renamed);
            assert.deepEqual(await store.get('whA'), renamed);
            assert.equal((await store.list()).length, 2, 'an update replaces, it does not add');
            await store.delete('whB');
            await store.delete('never-was');
            assert.equal(await store.get('whB'), undefined);
            assert.deepEqual((await store.list()).map((w) => w.id), ['whA']);
            assert.equal(await store.get('nope'), undefined);
        });

        if (ctx.shared) it('exclusive sections of two instances never overlap, and a webhook one creates the other lists', async () => {
            const a = webhooksOf(ctx);
            const peer = await ctx.peer();
            const b = peer.webhooks;
            assert.ok(a.exclusive && b?.exclusive, 'a shared store serializes start-up sections');
            const timeline: string[] = [];
            const section = (store: WebhookStore, name: string) => store.exclusive!(async () => {
                timeline.push(`${name}:in`);
                const count = (await store.list()).length;
                await new Promise((r) => setTimeout(r, 150));
                await store.create(webhook(`wh${name}${count}`, 1));
                timeline.push(`${name}:out`);
                return count;
            });
            const counts = await Promise.all([section(a, 'A'), section(b, 'B'), section(a, 'C')]);
            for (let i = 0; i < timeline.length; i += 2) assert.equal(timeline[i]!.split(':')[0], timeline[i + 1]!.split(':')[0], `sections overlap: ${timeline.join(' ')}`);
            assert.deepEqual(counts.slice().sort(), [0, 1, 2], 'each section saw the webhooks of the ones before it');
            assert.equal((await b.list()).length, 3);
        });
    });

    if (has.blobs) describe('BlobStore', () => {
        it('writes a blob in chunks and reads it back byte for byte; the size is the bytes written', async () => {
            const blobs = blobsOf(ctx);
            const bytes = Buffer.alloc(700_001);
            for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
            const writer = await blobs.create('payload-contract', 'application/octet-stream');
            for (let at = 0; at < bytes.length; at += 99_999) await writer.write(bytes.subarray(at, at + 99_999));
            assert.equal(await writer.commit(), bytes.length);
            const read = await readAll(blobs, 'payload-contract');
            assert.equal(read.size, bytes.length);
            assert.ok(read.bytes.equals(bytes), 'byte-exact');
        });

        it('an aborted or unknown blob cannot be read (NotFoundError); delete removes one and ignores an unknown key', async () => {
            const blobs = blobsOf(ctx);
            const aborted = await blobs.create('payload-aborted', 'text/plain');
            await aborted.write(Buffer.from('half'));
            await aborted.abort();
            await assert.rejects(blobs.read('payload-aborted'), NotFoundError);
            await assert.rejects(blobs.read('payload-unknown'), NotFoundError);
            const kept = await blobs.create('payload-kept', 'text/plain');
            await kept.write(Buffer.from('kept'));
            await kept.commit();
            assert.equal((await readAll(blobs, 'payload-kept')).bytes.toString(), 'kept');
            await blobs.delete('payload-kept');
            await blobs.delete('payload-unknown');
            await assert.rejects(blobs.read('payload-kept'), NotFoundError);
        });

        it('a blob being written is not readable before its commit', async () => {
            const blobs = blobsOf(ctx);
            const writer = await blobs.create('payload-pending', 'text/plain');
            await writer.write(Buffer.from('not yet'));
            await assert.rejects(blobs.read('payload-pending'), NotFoundError);
            await writer.commit();
            assert.equal((await readAll(blobs, 'payload-pending')).bytes.toString(), 'not yet');
        });
    });
}
