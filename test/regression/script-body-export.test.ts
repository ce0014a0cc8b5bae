import assert from 'node:assert/strict';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { until } from '../helpers/until.js';
import { json, startTestService } from '../helpers/service.js';

// Regression: when a customScript rewrote the stored body into one too large for a dataset item,
// the exporter copied that rewritten body to `payload-<id>`, overwriting the sender's original bytes
// kept there, so /logs/:id/payload served the script's body instead of what was received.
describe('regression: exporting a script-rewritten body too large for the dataset', () => {
    it('keeps serving the sender\'s bytes on /payload after the export made a reference', async () => {
        // 1.6 MB of control characters: each escapes to 6 bytes of JSON, past the 9 MB item limit.
        const svc = await startTestService({ input: { urlCount: 1, customScript: "event.body = '\\u0001'.repeat(1600000);" } });
        let restarted: Awaited<ReturnType<typeof startTestService>> | undefined;
        try {
            const original = '{"order":42,"note":"as sent"}';
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: original });
            assert.equal(res.status, 200);
            const { items } = await json<{ items: { id: string }[] }>(await svc.fetch('/logs?limit=1'));
            const id = items[0]!.id;
            // The export runs in the background: wait for it (the drain at stop is bounded in time, and
            // a loaded host can take longer to serialize a 9.6 MB item), then stop.
            await until('the outbox exported', async () => ((await json<{ sync: { outboxBacklog: number } }>(await svc.fetch('/system/metrics'))).sync.outboxBacklog === 0 ? true : undefined), { timeoutMs: 60_000 });
            await svc.close({ keepDir: true });
            const folder = join(svc.dir, 'datasets', 'default');
            const files = (await readdir(folder)).filter((f) => f.endsWith('.json'));
            const exported = await Promise.all(files.map(async (f) => JSON.parse(await readFile(join(folder, f), 'utf8')) as { id: string; body: unknown }));
            const item = exported.find((i) => i.id === id);
            assert.equal((item?.body as { truncated?: boolean } | undefined)?.truncated, true, 'exported as a reference');
            restarted = await startTestService({ dir: svc.dir, input: { urlCount: 1 } });
            const payload = await restarted.fetch(`/logs/${id}/payload`);
            assert.equal(payload.status, 200);
            assert.equal(await payload.text(), original);
        } finally {
            await restarted?.close();
            await rm(svc.dir, { recursive: true, force: true });
        }
    });
});
