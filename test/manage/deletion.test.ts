import Database from 'better-sqlite3';
import { access, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHoldingReceiver, startReceiver, type HoldingReceiver, type Receiver } from '../replay/receiver.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { openRawSse } from '../stream/sse-client.js';
import { createWebhook, hit, listedIds } from './helpers.js';

const THRESHOLD = 4096;
const exists = (file: string): Promise<boolean> => access(file).then(() => true, () => false);

/** Rows the database still holds for an event id, table by table (read-only, beside the service). */
function rowsFor(svc: TestService, id: string): Record<string, number> {
    const db = new Database(join(svc.dir, 'webhook-debugger', 'events.sqlite'), { readonly: true });
    try {
        const seq = db.prepare('SELECT seq FROM events WHERE id = ?').pluck().get(id) as number | undefined;
        const count = (sql: string, value: unknown): number => db.prepare(sql).pluck().get(value) as number;
        return {
            events: seq === undefined ? 0 : 1,
            forwardBacklog: count('SELECT count(*) FROM forward_backlog WHERE event_id = ?', id),
            forwards: count('SELECT count(*) FROM forwards WHERE event_id = ?', id),
            replays: count('SELECT count(*) FROM replays WHERE event_id = ?', id),
            bodies: seq === undefined ? 0 : count('SELECT count(*) FROM bodies WHERE seq = ?', seq),
        };
    } finally {
        db.close();
    }
}

describe('a deleted capture cannot be reached by any route', () => {
    let svc: TestService;
    let forwardTarget: HoldingReceiver;
    let replayTarget: Receiver;
    const ids: string[] = [];
    let payloadDir: string;

    beforeAll(async () => {
        forwardTarget = await startHoldingReceiver();
        replayTarget = await startReceiver();
        svc = await startTestService({
            input: { urlCount: 1, rateLimitPerMinute: 0, forwardUrl: forwardTarget.url },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
            overrides: { offloadThreshold: THRESHOLD },
        });
        payloadDir = join(svc.dir, 'key_value_stores', 'webhook-payloads');
        // before, the offloaded one to delete, after
        for (const body of ['before', 'x'.repeat(THRESHOLD * 4), 'after']) {
            await hit(svc, svc.webhookId, body);
        }
        ids.push(...(await listedIds(svc)).reverse());
        await forwardTarget.waitFor(3);
    });
    afterAll(async () => {
        await svc.close();
        await forwardTarget.close();
        await replayTarget.close();
    });

    it('is gone from the list, the detail, the payload, HAR, SSE resume and replay, with its payload file and forwarding backlog entry', async () => {
        const [before, doomed, after] = ids as [string, string, string];
        const replayed = await svc.fetch(`/replay/${svc.webhookId}/${doomed}?url=${encodeURIComponent(replayTarget.url)}`, { method: 'POST' });
        expect(replayed.status).toBe(200);
        expect((await svc.fetch(`/logs/${doomed}/payload`)).status).toBe(200);
        expect(await exists(join(payloadDir, `payload-${doomed}.bin`))).toBe(true);
        expect(rowsFor(svc, doomed)).toMatchObject({ events: 1, forwardBacklog: 1, replays: 1 });

        expect((await svc.fetch(`/logs/${doomed}`, { method: 'DELETE' })).status).toBe(204);

        expect(await listedIds(svc)).toEqual([after, before]);
        expect((await svc.fetch(`/logs/${doomed}`)).status).toBe(404);
        expect((await svc.fetch(`/logs/${doomed}/payload`)).status).toBe(404);
        const har = await json<{ log: { entries: { request: { url: string }; _id?: string }[] } }>(await svc.fetch('/logs?format=har'));
        expect(JSON.stringify(har)).not.toContain(doomed);
        expect(har.log.entries.length).toBe(2);
        // Resuming after the one before it skips it; resuming from it is an unknown id.
        const resumed = await openRawSse(`${svc.url}/log-stream`, { 'Last-Event-ID': before });
        const fromDoomed = await openRawSse(`${svc.url}/log-stream`, { 'Last-Event-ID': doomed });
        try {
            await resumed.until((s) => s.events().length >= 1);
            await new Promise((r) => setTimeout(r, 200));
            expect(resumed.events().map((e) => e.id)).toEqual([after]);
            await fromDoomed.until((s) => s.comments().includes('resume incomplete, page /logs'));
            expect(fromDoomed.events()).toEqual([]);
        } finally {
            resumed.close();
            fromDoomed.close();
        }
        const replayAgain = await svc.fetch(`/replay/${svc.webhookId}/${doomed}?url=${encodeURIComponent(replayTarget.url)}`, { method: 'POST' });
        expect(replayAgain.status).toBe(404);
        expect(await exists(join(payloadDir, `payload-${doomed}.bin`))).toBe(false);
        expect(rowsFor(svc, doomed)).toEqual({ events: 0, forwardBacklog: 0, forwards: 0, replays: 0, bodies: 0 });
        expect(rowsFor(svc, before).forwardBacklog).toBe(1);

        // The forward that was on the wire ends after the deletion: its outcome is not kept.
        forwardTarget.release();
        await new Promise((r) => setTimeout(r, 500));
        const metrics = await json<{ forwarding: { backlog: number } }>(await svc.fetch('/system/metrics'));
        expect(metrics.forwarding.backlog).toBe(0);
        expect(rowsFor(svc, doomed)).toEqual({ events: 0, forwardBacklog: 0, forwards: 0, replays: 0, bodies: 0 });
        expect(rowsFor(svc, before).forwards).toBe(1);
    });

    it('deleting a webhook deletes its captures and their payloads', async () => {
        const hook = await createWebhook(svc);
        await hit(svc, hook.id, 'y'.repeat(THRESHOLD * 2));
        await hit(svc, hook.id, 'small');
        const captured = await listedIds(svc, `&webhookId=${hook.id}`);
        expect(captured.length).toBe(2);
        const files = async (): Promise<string[]> => (await readdir(payloadDir)).filter((f) => captured.some((id) => f.includes(id)));
        expect((await files()).length).toBe(1);
        expect((await svc.fetch(`/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(204);
        for (const id of captured) expect(rowsFor(svc, id).events).toBe(0);
        expect(await files()).toEqual([]);
        expect(await listedIds(svc, `&webhookId=${hook.id}`)).toEqual([]);
    });
});

describe('deletion lasts across a restart', () => {
    it('a capture deleted before a restart stays deleted, and its forward is not sent again', async () => {
        const target = await startHoldingReceiver();
        const input = { urlCount: 1, rateLimitPerMinute: 0, forwardUrl: target.url };
        const first = await startTestService({ input, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        let second: TestService | undefined;
        try {
            await hit(first, first.webhookId, 'keep');
            await hit(first, first.webhookId, 'drop');
            const [drop, keep] = await listedIds(first);
            await target.waitFor(2);
            expect((await first.fetch(`/logs/${drop}`, { method: 'DELETE' })).status).toBe(204);
            await first.stop({ drainMs: 500, forwardMs: 200 });
            const before = target.requests.length;
            target.release();
            second = await startTestService({ dir: first.dir, input, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
            expect(await listedIds(second)).toEqual([keep]);
            expect((await second.fetch(`/logs/${drop}`)).status).toBe(404);
            await target.waitFor(before + 1);
            await new Promise((r) => setTimeout(r, 500));
            expect(target.requests.slice(before).map((r) => r.body.toString())).toEqual(['keep']);
        } finally {
            await (second ?? first).close();
            await target.close();
        }
    });
});

describe('deletion survives a rebuild of the read model from the dataset', () => {
    it('a capture deleted after its export does not come back in a fresh container (database gone, dataset kept)', async () => {
        const first = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        let second: TestService | undefined;
        try {
            for (const body of ['one', 'two', 'three']) await hit(first, first.webhookId, body);
            // Exported to the (append-only) dataset first.
            await waitUntil(async () => (await json<{ sync: { outboxBacklog: number } }>(await first.fetch('/system/metrics'))).sync.outboxBacklog === 0);
            const [third, two, one] = await listedIds(first);
            expect((await first.fetch(`/logs?requestUrl=${encodeURIComponent('/webhook/')}&id=${two}`, { method: 'DELETE' })).status).toBe(200);
            await first.close({ keepDir: true });
            await rm(join(first.dir, 'webhook-debugger'), { recursive: true, force: true });

            second = await startTestService({ dir: first.dir, input: { urlCount: 1, rateLimitPerMinute: 0 } });
            const s = second;
            await waitUntil(async () => (await json<{ sync: { catchUp: { done: boolean } } }>(await s.fetch('/system/metrics'))).sync.catchUp.done);
            expect(await listedIds(second)).toEqual([third, one]);
            expect((await second.fetch(`/logs/${two}`)).status).toBe(404);
        } finally {
            await (second ?? first).close();
        }
    });
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check().catch(() => false))) {
        if (Date.now() > deadline) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 50));
    }
}

describe('the deletion log stays small', () => {
    it('merges the records of many single deletes into one when a fresh database loads them, and still skips every deleted capture', async () => {
        const first = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        let second: TestService | undefined;
        const store = join(first.dir, 'key_value_stores', 'default');
        const records = async (): Promise<string[]> => (await readdir(store)).filter((f) => f.startsWith('deleted-'));
        try {
            for (let i = 0; i < 14; i++) await hit(first, first.webhookId, `n${i}`);
            await waitUntil(async () => (await json<{ sync: { outboxBacklog: number } }>(await first.fetch('/system/metrics'))).sync.outboxBacklog === 0);
            const ids = await listedIds(first);
            const doomed = ids.slice(0, 12);
            for (const id of doomed) expect((await first.fetch(`/logs/${id}`, { method: 'DELETE' })).status).toBe(204);
            expect((await records()).length).toBe(12);
            await first.close({ keepDir: true });
            await rm(join(first.dir, 'webhook-debugger'), { recursive: true, force: true });

            second = await startTestService({ dir: first.dir, input: { urlCount: 1, rateLimitPerMinute: 0 } });
            const s = second;
            await waitUntil(async () => (await json<{ sync: { catchUp: { done: boolean } } }>(await s.fetch('/system/metrics'))).sync.catchUp.done);
            expect(await listedIds(second)).toEqual(ids.slice(12));
            expect((await records()).length).toBe(1);
        } finally {
            await (second ?? first).close();
        }
    });
});
