import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { afterAll, describe, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { listAllLogs, payloadOf, removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';

const SENDERS = 16;
/** Senders stop at the kill; this only bounds a run in which the service never answers. */
const MAX_SEND_MS = 30_000;
/** Answered requests needed before the kill, so that it lands in flowing traffic. */
const MIN_ACKED = 50;

/** A request the service answered with 2xx: by contract its event was committed before the answer. */
interface Acked {
    requestId: string;
    webhookId: string;
    marker: string;
    body: string;
}

/**
 * One sender: POSTs distinct JSON bodies back to back until `stopAt` or until the service dies.
 * Only 2xx answers are recorded; the status line is enough, the service writes it after the commit.
 */
async function sender(base: string, index: number, webhooks: string[], stopAt: number, acked: Acked[], killed: () => boolean): Promise<void> {
    for (let n = 0; Date.now() < stopAt && !killed(); n++) {
        const webhookId = webhooks[(index + n) % webhooks.length]!;
        const marker = `s${index}-n${n}-${randomInt(1e9)}`;
        const body = JSON.stringify({ marker, sender: index, n, note: 'durability under SIGKILL', pad: 'x'.repeat(randomInt(64)) });
        let res: Response;
        try {
            res = await fetch(`${base}/webhook/${webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        } catch {
            if (killed()) return;
            continue;
        }
        if (res.status >= 200 && res.status < 300) acked.push({ requestId: res.headers.get('x-request-id') ?? '', webhookId, marker, body });
        await res.text().catch(() => undefined);
    }
}

// `normal` (the default) leaves each group commit in the OS page cache until the next checkpoint;
// `full` fsyncs it. Both must survive a crash of the process: the kernel still holds what was written.
for (const durability of ['full', 'normal'] as const) describe(`SIGKILL during ingest (STORAGE_SYNC=${durability})`, () => {
    let svc: ServiceProcess | undefined;
    let dir: string | undefined;
    afterAll(async () => {
        await svc?.stop();
        if (dir) await removeDir(dir);
    });

    it('keeps every event that was answered 2xx', async () => {
        const input = { urlCount: 2 };
        const env = { INGEST_RATE_LIMIT_PER_MINUTE: '0', STORAGE_SYNC: durability };
        svc = await startServiceProcess({ input, env });
        dir = svc.dir;
        const webhooksBefore = await webhookIds(svc);
        assert.equal(webhooksBefore.length, 2);

        const acked: Acked[] = [];
        let killedAt = 0;
        const killed = (): boolean => killedAt > 0;
        const started = Date.now();
        const killAfterMs = 700 + randomInt(1600);
        const target = svc;
        const killer = (async () => {
            await new Promise((r) => setTimeout(r, killAfterMs));
            // On a loaded machine the first answers come late: kill mid-traffic, once enough were answered.
            while (acked.length < MIN_ACKED && Date.now() < started + MAX_SEND_MS - 1000) await new Promise((r) => setTimeout(r, 10));
            killedAt = Date.now();
            target.signal('SIGKILL');
        })();
        const stopAt = started + MAX_SEND_MS;
        await Promise.all([killer, ...Array.from({ length: SENDERS }, (_, i) => sender(svc!.url, i, webhooksBefore, stopAt, acked, killed))]);
        const exit = await svc.exited;
        assert.equal(exit.signal, 'SIGKILL', 'the process died of the SIGKILL, not on its own');
        diagnostic(`killed after ${killedAt - started} ms with ${acked.length} requests answered 2xx`);
        assert.ok(acked.length >= MIN_ACKED, `traffic was flowing at the kill (${acked.length} answered)`);
        assert.ok(acked.every((a) => a.requestId !== ''), 'every 2xx answer carries X-Request-Id');

        svc = await startServiceProcess({ dir, input, env });
        assert.deepEqual(await webhookIds(svc), webhooksBefore, 'the webhook ids survive the crash');
        const metrics = (await (await fetch(`${svc.url}/system/metrics`)).json()) as { storage: { durability: string } };
        assert.equal(metrics.storage.durability, durability, 'the writer commits in the mode asked for, as SQLite reports it');

        const stored = new Map((await listAllLogs(svc)).map((item) => [item.requestId, item]));
        const missing = acked.filter((a) => !stored.has(a.requestId));
        assert.deepEqual(missing.map((a) => a.marker), [], `${missing.length} of ${acked.length} answered events are lost`);
        for (const a of acked) assert.equal(stored.get(a.requestId)!.webhookId, a.webhookId, `event ${a.marker} is on the webhook it was sent to`);
        diagnostic(`${stored.size} events stored after restart (${stored.size - acked.length} more were committed but their answer never arrived)`);

        // The last answers before the kill are the ones a lazy commit would lose; check them and a random sample byte for byte.
        const sample = new Set([...acked.slice(-8), ...Array.from({ length: 24 }, () => acked[randomInt(acked.length)]!)]);
        for (const a of sample) {
            const bytes = await payloadOf(svc, stored.get(a.requestId)!.id);
            assert.equal(bytes.toString('utf8'), a.body, `payload of ${a.marker} is the bytes that were sent`);
        }
    });
});
