import assert from 'node:assert/strict';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';

// Issue 9, item 4: each body below is captured, listed, and read back by /logs/:id and
// /logs/:id/payload without a 5xx, and the event after it still reaches the dataset.

interface Sent {
    logId: string;
    requestId: string;
}

async function send(svc: TestService, body: Buffer | string, contentType: string): Promise<Sent> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    assert.equal(res.status, 200, await res.text());
    const requestId = res.headers.get('x-request-id')!;
    const list = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs?limit=100'));
    const item = list.items.find((i) => i.requestId === requestId);
    assert.ok(item, 'the event is listed');
    return { logId: item.id, requestId };
}

/** GET /logs/:id and /payload answer 200; the payload is the stored bytes. */
async function readBack(svc: TestService, id: string): Promise<{ entry: Record<string, unknown>; payload: Buffer }> {
    const detail = await svc.fetch(`/logs/${id}`);
    assert.equal(detail.status, 200, 'GET /logs/:id');
    const entry = await json(detail);
    const res = await svc.fetch(`/logs/${id}/payload`);
    assert.equal(res.status, 200, 'GET /logs/:id/payload');
    return { entry, payload: Buffer.from(await res.arrayBuffer()) };
}

/** Stops the service (which drains the outbox) and returns the local dataset's items in order. */
async function exportedItems(svc: TestService): Promise<Record<string, unknown>[]> {
    await svc.close({ keepDir: true });
    const metricsError = svc.logs.filter((l) => l.includes('dataset export failed'));
    assert.deepEqual(metricsError, [], 'no export attempt failed');
    const folder = join(svc.dir, 'datasets', 'default');
    const files = (await readdir(folder)).filter((f) => f.endsWith('.json')).sort();
    return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(folder, f), 'utf8')) as Record<string, unknown>));
}

const after = async (svc: TestService): Promise<Sent> => send(svc, '{"after":true}', 'application/json');

function itemOf(items: Record<string, unknown>[], id: string): Record<string, unknown> {
    const item = items.find((i) => i.id === id);
    assert.ok(item, `event ${id} reached the dataset`);
    return item;
}

const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('regression: no body breaks a read or stops the export', () => {
    it('regression: a JSON body nested 5,000 levels deep made GET /logs/:id answer 500 and stopped the export', async () => {
        const svc = await startTestService({ input: { urlCount: 1 } });
        try {
            const deep = deepObject(5000);
            const bad = await send(svc, deep, 'application/json');
            const { entry, payload } = await readBack(svc, bad.logId);
            assert.equal(entry.body, deep, 'served as its text, byte-exact');
            assert.match(String((entry.meta as Record<string, unknown>).jsonParseError), /deeper than 1000 levels/);
            assert.equal(payload.toString('utf8'), deep);
            const next = await after(svc);
            const items = await exportedItems(svc);
            assert.equal(itemOf(items, bad.logId).body, deep, 'exported whole, as text');
            assert.deepEqual(itemOf(items, next.logId).body, { after: true });
        } finally {
            await rm(svc.dir, { recursive: true, force: true });
        }
    });

    it('regression: the deep body with redactBodyPaths set answered 500 and was not stored', async () => {
        const svc = await startTestService({ input: { urlCount: 1, redactBodyPaths: ['body.card.number', 'body.deep.a.a'] } });
        try {
            const body = `{"card":{"number":"4242424242424242","exp":"12/30"},"deep":${deepObject(5000)}}`;
            const bad = await send(svc, body, 'application/json');
            const { entry, payload } = await readBack(svc, bad.logId);
            const stored = payload.toString('utf8');
            assert.ok(!stored.includes('4242424242424242'), 'the secret is not stored');
            // Redacting body.deep.a.a cut the nesting to 4 levels: the stored body is ordinary JSON.
            assert.deepEqual(JSON.parse(stored), { card: { number: '[REDACTED]', exp: '12/30' }, deep: { a: { a: '[REDACTED]' } } });
            assert.equal(typeof entry.body, 'string', 'kept as text, as the scan of the received bytes decided');
            assert.equal((entry.meta as Record<string, unknown>).redacted, true);
            assert.equal(entry.size, payload.length);

            // Still deep after redaction: redacted, stored as text, never a 500.
            const deeper = `{"card":{"number":"4242424242424242"},"rest":${deepObject(5000)}}`;
            const second = await send(svc, deeper, 'application/json');
            const back = await readBack(svc, second.logId);
            assert.equal(back.payload.toString('utf8'), `{"card":{"number":"[REDACTED]"},"rest":${deepObject(5000)}}`);
            const next = await after(svc);
            const items = await exportedItems(svc);
            assert.ok(!JSON.stringify(itemOf(items, bad.logId)).includes('4242424242424242'));
            itemOf(items, second.logId);
            itemOf(items, next.logId);
        } finally {
            await rm(svc.dir, { recursive: true, force: true });
        }
    });

    it('regression: 1.6 MB of control bytes escape past the 9 MB dataset item limit; exported as a reference that still resolves after a restore', async () => {
        const svc = await startTestService({ input: { urlCount: 1 } });
        const control = Buffer.alloc(1_600_000, 0x01);
        try {
            const bad = await send(svc, control, 'text/plain');
            const { entry, payload } = await readBack(svc, bad.logId);
            assert.equal(entry.body, control.toString('utf8'));
            assert.deepEqual(payload, control);
            assert.ok(JSON.stringify(entry).length > 9_437_184, 'the entry is over the SDK item limit as JSON');
            const next = await after(svc);
            const items = await exportedItems(svc);
            const item = itemOf(items, bad.logId);
            assert.deepEqual(item.body, { truncated: true, size: control.length, payloadUrl: `http://localhost:${new URL(svc.url).port}/logs/${bad.logId}/payload` });
            assert.equal(item.requestId, bad.requestId, 'the rest of the event is exported');
            assert.deepEqual(itemOf(items, next.logId).body, { after: true });
            assert.ok(items.indexOf(item) < items.indexOf(itemOf(items, next.logId)), 'in capture order');

            // A fresh container: the database is gone, the dataset and the payload store remain.
            await rm(join(svc.dir, 'webhook-debugger'), { recursive: true, force: true });
            const restored = await startTestService({ dir: svc.dir, input: { urlCount: 1 } });
            try {
                for (let i = 0; i < 300 && (await restored.fetch(`/logs/${bad.logId}`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
                const res = await restored.fetch(`/logs/${bad.logId}/payload`);
                assert.equal(res.status, 200);
                assert.deepEqual(Buffer.from(await res.arrayBuffer()), control, 'the reference resolves to the original bytes');
            } finally {
                await restored.close({ keepDir: true });
            }
        } finally {
            await rm(svc.dir, { recursive: true, force: true });
        }
    });

    it('regression: a pretty-printed JSON body just under the 5 MB offload threshold is stored inline, read back and exported', async () => {
        const svc = await startTestService({ input: { urlCount: 1 } });
        try {
            const rows = Array.from({ length: 30_000 }, (_, i) => ({ id: i, note: `row ${i} \u0007 é`, tags: ['a', 'b'] }));
            let text = JSON.stringify(rows, null, 1);
            text += ' '.repeat(5 * 1024 * 1024 - 16 - Buffer.byteLength(text));
            assert.ok(Buffer.byteLength(text) < 5 * 1024 * 1024 && Buffer.byteLength(text) > 4.9 * 1024 * 1024);
            const bad = await send(svc, text, 'application/json');
            const { entry, payload } = await readBack(svc, bad.logId);
            assert.deepEqual(entry.body, rows);
            assert.equal(payload.toString('utf8'), text);
            const next = await after(svc);
            const items = await exportedItems(svc);
            const item = itemOf(items, bad.logId);
            // Under the item limit (about 7.6 MB as JSON): exported whole, with its exact text for a restore.
            assert.deepEqual(item.body, rows);
            assert.equal(item.bodyText, text);
            assert.deepEqual(itemOf(items, next.logId).body, { after: true });
        } finally {
            await rm(svc.dir, { recursive: true, force: true });
        }
    });
});
