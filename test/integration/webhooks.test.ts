import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

const HOUR = 3_600_000;

describe('webhook lifecycle', () => {
    it('generates urlCount webhooks with ids wh_ + 21 characters expiring after retentionHours', async () => {
        const clock = new ManualClock();
        const svc = await startTestService({ input: { urlCount: 4, retentionHours: 2 }, clock });
        try {
            const active = svc.deps.webhooks.active();
            assert.equal(active.length, 4);
            for (const w of active) {
                assert.match(w.id, /^wh_[A-Za-z0-9]{21}$/);
                assert.equal(Date.parse(w.expiresAt), clock.now() + 2 * HOUR);
            }
            const info = await json<{ system: { webhookCount: number; activeWebhooks: { id: string }[] } }>(await svc.fetch('/info'));
            assert.equal(info.system.webhookCount, 4);
            assert.deepEqual(info.system.activeWebhooks.map((w) => w.id).sort(), active.map((w) => w.id).sort());
        } finally {
            await svc.close();
        }
    });

    it('keeps webhooks across a restart and tops them up when urlCount grows', async () => {
        const first = await startTestService({ input: { urlCount: 2 } });
        const ids = first.deps.webhooks.active().map((w) => w.id);
        await first.close({ keepDir: true });
        const second = await startTestService({ dir: first.dir, input: { urlCount: 2 } });
        assert.deepEqual(second.deps.webhooks.active().map((w) => w.id), ids);
        await second.close({ keepDir: true });
        const third = await startTestService({ dir: first.dir, input: { urlCount: 5 } });
        try {
            const now = third.deps.webhooks.active().map((w) => w.id);
            assert.equal(now.length, 5);
            assert.deepEqual(now.slice(0, 2), ids);
        } finally {
            await third.close();
        }
    });

    it('answers 404 on ingest and on the entries of an expired webhook, and cleans it up', async () => {
        const clock = new ManualClock();
        const svc = await startTestService({ input: { urlCount: 1, retentionHours: 1 }, clock, overrides: { timings: { cleanupMs: 50 } } });
        try {
            // Webhook records: rows of the database with PostgreSQL, files of the local key-value store with SQLite.
            const { backend, webhooks } = svc.deps.storage;
            const stored = async (): Promise<string[]> => backend === 'postgres'
                ? (await webhooks.list()).map((w) => w.id)
                : (await (await import('node:fs/promises')).readdir(`${svc.dir}/key_value_stores/default`)).filter((f) => f.startsWith('webhook-'));
            assert.equal((await stored()).length, 1, 'the webhook is stored while it lives');
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'before expiry' });
            assert.equal(res.status, 200);
            const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs'));
            const logId = list.items[0]!.id;
            assert.equal((await svc.fetch(`/logs/${logId}`)).status, 200);

            clock.advance(HOUR + 1);
            const late = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'after expiry' });
            assert.equal(late.status, 404);
            assert.equal((await svc.fetch(`/logs/${logId}`)).status, 404);
            assert.equal((await svc.fetch(`/logs/${logId}/payload`)).status, 404);
            assert.equal(await svc.deps.storage.events.webhookOf(logId), svc.webhookId, 'the row remains');

            // The periodic cleanup deletes its record (one per webhook) from the store.
            const records = await until('the cleanup to delete the webhook records', async () => {
                const left = await stored();
                return left.length === 0 ? left : undefined;
            });
            assert.deepEqual(records, []);
            const ready = await svc.fetch('/ready');
            assert.equal(ready.status, 503, 'no active webhooks left');
        } finally {
            await svc.close();
        }
    });
});

