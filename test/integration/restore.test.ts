import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const exported = (svc: TestService) => until('the outbox exported', async () => {
    const m = await json<{ sync: { outboxBacklog: number } }>(await svc.fetch('/system/metrics'));
    return m.sync.outboxBacklog === 0 ? true : undefined;
});

describe('read model restore from the dataset', () => {
    it('rebuilds a missing database from the dataset, byte-exact, without exporting twice', async () => {
        const first = await startTestService({ input: { urlCount: 1 } });
        const bodies = [
            { type: 'application/json', bytes: Buffer.from('{\n  "pretty": [1, 2, 3]\n}') },
            { type: 'text/plain', bytes: Buffer.from('plain text é') },
            { type: 'application/octet-stream', bytes: Buffer.from([0, 1, 2, 250, 251, 252]) },
        ];
        const ids: string[] = [];
        for (const b of bodies) {
            const res = await first.fetch(`/webhook/${first.webhookId}?n=${ids.length}`, { method: 'POST', headers: { 'content-type': b.type }, body: b.bytes });
            assert.equal(res.status, 200);
            ids.push(res.headers.get('x-request-id')!);
        }
        await exported(first);
        const before = await json<{ items: { id: string; requestId: string }[] }>(await first.fetch('/logs'));
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
            }
            const ready = await json<{ checks: { database: { status: string } } }>(await second.fetch('/ready'));
            assert.equal(ready.checks.database.status, 'ok');
            const metrics = await json<{ sync: { outboxBacklog: number; catchUp: { done: boolean; imported: number } } }>(await second.fetch('/system/metrics'));
            assert.equal(metrics.sync.outboxBacklog, 0, 'restored events are not exported again');
            assert.deepEqual({ done: metrics.sync.catchUp.done, imported: metrics.sync.catchUp.imported }, { done: true, imported: 3 });
        } finally {
            await second.close();
        }
    });
});
