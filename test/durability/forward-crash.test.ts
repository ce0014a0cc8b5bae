import { afterAll, describe, expect, it } from 'vitest';
import { getJson, removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { startHoldingReceiver, type HoldingReceiver } from '../replay/receiver.js';

describe('forwarding across a crash (SIGKILL)', () => {
    let svc: ServiceProcess | undefined;
    let target: HoldingReceiver | undefined;
    afterAll(async () => {
        await svc?.stop();
        await target?.close();
        if (svc) await removeDir(svc.dir);
    });

    it('every capture answered 2xx before the kill is forwarded after the restart', async () => {
        target = await startHoldingReceiver((_req, res) => res.writeHead(204).end());
        const input = { forwardUrl: `${target.url}/in`, replayTimeoutMs: 60_000 };
        const env = { SSRF_ALLOWLIST: '127.0.0.1', INGEST_RATE_LIMIT_PER_MINUTE: '0' };
        svc = await startServiceProcess({ input, env });
        const [webhookId] = await webhookIds(svc);
        const bodies = Array.from({ length: 120 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i)}"}`);
        for (const body of bodies) {
            const res = await svc.fetch(`/webhook/${webhookId}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
            expect(res.status).toBe(200);
        }
        // Some are on the wire to a target that does not answer (16 per delivery thread); the others wait.
        await target.waitFor(16);
        svc.signal('SIGKILL');
        await svc.exited;
        // Requests that had fully arrived before the kill may still be on their way through this process.
        await new Promise((r) => setTimeout(r, 300));
        const onTheWire = target.requests.length;
        target.release();

        svc = await startServiceProcess({ dir: svc.dir, input, env });
        await until('every capture forwarded after the restart', async () => (target!.requests.length >= onTheWire + bodies.length ? true : undefined), { timeoutMs: 20_000 });
        const afterRestart = target.requests.slice(onTheWire).map((r) => r.body.toString());
        expect(afterRestart.sort()).toEqual([...bodies].sort());
        // The restarted process delivered all 120 (its counters start at zero) and the backlog is empty.
        const forwarding = await until('the backlog to empty', async () => {
            const f = (await getJson<{ forwarding: { delivered: number; backlog: number } }>(svc!, '/system/metrics')).forwarding;
            return f.backlog === 0 ? f : undefined;
        });
        expect(forwarding.delivered).toBe(bodies.length);
    });
});
