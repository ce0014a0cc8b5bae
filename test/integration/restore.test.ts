import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { multipart } from '../forms/bodies.js';

const exported = (svc: TestService) => until('the outbox exported', async () => {
    const m = await json<{ sync: { outboxBacklog: number } }>(await svc.fetch('/system/metrics'));
    return m.sync.outboxBacklog === 0 ? true : undefined;
});

describe('read model restore from the dataset', () => {
    it('rebuilds a missing database from the dataset, byte-exact, without exporting twice', async () => {
        const first = await startTestService({ input: { urlCount: 1 } });
        const bodies: { type: string; bytes: Buffer }[] = [
            { type: 'application/json', bytes: Buffer.from('{\n  "pretty": [1, 2, 3]\n}') },
            { type: 'text/plain', bytes: Buffer.from('plain text é') },
            { type: 'application/octet-stream', bytes: Buffer.from([0, 1, 2, 250, 251, 252]) },
        ];
        // Forms: their description (form, formError) comes back with them, and their files are served.
        const form = multipart([{ name: 'a', value: 'ä' }, { name: 'f', filename: 'f.bin', type: 'application/octet-stream', value: Buffer.from([0, 13, 10, 255]) }]);
        bodies.push({ type: form.contentType, bytes: form.body }, { type: 'multipart/form-data; boundary=nope', bytes: form.body });
        const ids: string[] = [];
        for (const b of bodies) {
            const res = await first.fetch(`/webhook/${first.webhookId}?n=${ids.length}`, { method: 'POST', headers: { 'content-type': b.type }, body: b.bytes });
            assert.equal(res.status, 200);
            ids.push(res.headers.get('x-request-id')!);
        }
        await exported(first);
        const before = await json<{ items: { id: string; requestId: string }[] }>(await first.fetch('/logs'));
        const described = async (svc: TestService, id: string): Promise<unknown> => json(await svc.fetch(`/logs/${id}?fields=form,formError`));
        const forms = new Map(await Promise.all(before.items.map(async (i) => [i.id, await described(first, i.id)] as const)));
        assert.equal([...forms.values()].filter((f) => Object.keys(f as object).length > 0).length, 2);
        await first.close({ keepDir: true });

        // A fresh container after a migration: the local database is gone, the dataset remains.
        await rm(join(first.dir, 'webhook-debugger'), { recursive: true, force: true });
        const second = await startTestService({ dir: first.dir, input: { urlCount: 1 } });
        try {
            assert.equal(second.webhookId, first.webhookId);
            const restored = await until('every capture restored from the dataset', async () => {
                const list = await json<{ total: number; items: { id: string; requestId: string }[] }>(await second.fetch('/logs'));
                return list.total === bodies.length ? list : undefined;
            });
            assert.deepEqual(restored.items.map((i) => i.id).sort(), before.items.map((i) => i.id).sort());
            for (const [n, b] of bodies.entries()) {
                const item = restored.items.find((i) => i.requestId === ids[n]);
                assert.ok(item);
                const payload = Buffer.from(await (await second.fetch(`/logs/${item.id}/payload`)).arrayBuffer());
                assert.deepEqual(payload, b.bytes, `${b.type} restored byte-exact`);
                assert.deepEqual(await described(second, item.id), forms.get(item.id), `${b.type}: its form description restored`);
            }
            const withFile = restored.items.find((i) => i.requestId === ids[3])!;
            assert.deepEqual(Buffer.from(await (await second.fetch(`/logs/${withFile.id}/files/1`)).arrayBuffer()), Buffer.from([0, 13, 10, 255]));
            const ready = await json<{ checks: { database: { status: string } } }>(await second.fetch('/ready'));
            assert.equal(ready.checks.database.status, 'ok');
            const metrics = await json<{ sync: { outboxBacklog: number; catchUp: { done: boolean; imported: number } } }>(await second.fetch('/system/metrics'));
            assert.equal(metrics.sync.outboxBacklog, 0, 'restored events are not exported again');
            assert.deepEqual({ done: metrics.sync.catchUp.done, imported: metrics.sync.catchUp.imported }, { done: true, imported: bodies.length });
        } finally {
            await second.close();
        }
    });
});
