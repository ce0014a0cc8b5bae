import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterAll, describe, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { getJson, listAllLogs, metrics, removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

/** Opens and closes a TCP connection; resolves with the error code when the connection is refused. */
function tryConnect(port: number): Promise<string | undefined> {
    return new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
            socket.destroy();
            resolve(undefined);
        });
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    });
}

describe('graceful shutdown on SIGTERM', () => {
    let svc: ServiceProcess | undefined;
    let dir: string | undefined;
    afterAll(async () => {
        await svc?.stop();
        if (dir) await removeDir(dir);
    });

    it('answers the in-flight request, refuses new connections, exits 0 and keeps the event', async () => {
        // 3 s of delay keeps the request in flight through the checks below even on a loaded 2-core machine.
        const input = { urlCount: 1, responseDelayMs: 3000 };
        svc = await startServiceProcess({ input });
        dir = svc.dir;
        const [hook] = await webhookIds(svc);
        const body = JSON.stringify({ inflight: true, marker: `m-${Date.now()}` });

        const sentAt = Date.now();
        let answeredAt = 0;
        const inflight = fetch(`${svc.url}/webhook/${hook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (res) => {
            const text = await res.text();
            answeredAt = Date.now();
            return { status: res.status, requestId: res.headers.get('x-request-id'), text };
        });
        inflight.catch(() => undefined);
        // In flight: committed and now waiting out responseDelayMs, and at least ~200 ms old.
        const probe = svc;
        await until('the event to be committed', async () => ((await metrics(probe)).storage.eventsStored === 1 ? true : undefined));
        await new Promise((r) => setTimeout(r, Math.max(0, 200 - (Date.now() - sentAt))));
        assert.equal(answeredAt, 0, 'the request is still in flight');

        const exitWatch = svc.exited;
        svc.signal('SIGTERM');
        const signalledAt = Date.now();
        const refused = await until('new connections to be refused', async () => ((await tryConnect(probe.port)) === 'ECONNREFUSED' ? Date.now() : undefined), { timeoutMs: 10_000, intervalMs: 10 });
        assert.equal(answeredAt, 0, 'new connections are refused while the in-flight request is still draining');
        diagnostic(`refused ${refused - signalledAt} ms after SIGTERM`);

        const answer = await inflight;
        assert.equal(answer.status, 200);
        assert.equal(answer.text, 'OK');
        assert.ok(answer.requestId);
        assert.ok(answeredAt - sentAt >= 3000, 'the answer still waited out responseDelayMs');

        const exit = await exitWatch;
        assert.deepEqual(exit, { code: 0, signal: null }, 'a clean exit');
        const exitedAfter = Date.now() - signalledAt;
        diagnostic(`exited ${exitedAfter} ms after SIGTERM`);
        // Regression (a keep-alive connection held shutdown for the whole 15 s drain timeout).
        assert.ok(exitedAfter < 10_000, `shutdown finished ${exitedAfter} ms after SIGTERM, well before the drain timeout`);
        assert.match(svc.output(), /Shutting down \(SIGTERM\)/);

        svc = await startServiceProcess({ dir, input });
        const item = (await listAllLogs(svc)).find((i) => i.requestId === answer.requestId);
        assert.ok(item, 'the in-flight event is stored after the restart');
        const entry = await getJson<{ body: unknown; statusCode: number }>(svc, `/logs/${item.id}`);
        assert.deepEqual(entry.body, JSON.parse(body));
        assert.equal(entry.statusCode, 200);
    });
});
