import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { startRun, type PlatformRun } from '../platform/sim/run.js';
import { ApifySim } from '../platform/sim/server.js';
import { startContainer } from '../platform/sim/service.js';
import type { WebhookView } from './helpers.js';

// The real service (`dist/main.js`; run `npx tsc -p tsconfig.build.json` first) in two Standby runs
// side by side against the simulated Apify API: webhooks are records of the named key-value store.
const ACTOR = 'simManageActor001';
const STORE = `webhook-debugger-actor-${ACTOR}`;
const HOUR = 3_600_000;

const call = async (svc: ServiceProcess, method: string, path: string, body?: unknown): Promise<{ status: number; json: () => unknown; text: string; headers: Headers }> => {
    const res = await svc.fetch(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: () => JSON.parse(text) as unknown };
};
const list = async (svc: ServiceProcess): Promise<WebhookView[]> => ((await call(svc, 'GET', '/webhooks')).json() as { items: WebhookView[] }).items;

describe('managed webhooks on the platform (simulated API, real SDK, two runs)', () => {
    let sim: ApifySim;
    let runA: PlatformRun;
    let runB: PlatformRun;
    let a: ServiceProcess;
    let b: ServiceProcess;
    const running: ServiceProcess[] = [];
    const legacy = [
        { id: 'wh_legacyAAAAAAAAAAAAAAAAAA', createdAt: new Date(Date.now() - HOUR).toISOString(), expiresAt: new Date(Date.now() + 20 * HOUR).toISOString() },
        { id: 'wh_legacyBBBBBBBBBBBBBBBBBB', createdAt: new Date(Date.now() - HOUR + 1).toISOString(), expiresAt: new Date(Date.now() + 20 * HOUR).toISOString() },
    ];
    const records = () => [...sim.state.kvsByName(STORE).records.keys()];

    beforeAll(async () => {
        sim = await new ApifySim().start();
        // What an earlier version left: the whole list in one record.
        sim.state.kvsByName(STORE).records.set('WEBHOOKS', { body: Buffer.from(JSON.stringify(legacy)), contentType: 'application/json; charset=utf-8' });
        const input = { urlCount: 2, rateLimitPerMinute: 0 };
        runA = startRun(sim, { actorId: ACTOR, input });
        runB = startRun(sim, { actorId: ACTOR, input });
        a = await startContainer(sim, runA);
        running.push(a);
        b = await startContainer(sim, runB);
        running.push(b);
    });
    afterAll(async () => {
        for (const svc of running) await svc.stop();
        await sim.close();
        for (const svc of running) await removeDir(svc.dir);
    });

    it('moves the single-record list of an older version into one record per webhook', async () => {
        expect((await list(a)).map((w) => w.id)).toEqual(legacy.map((w) => w.id));
        expect((await list(b)).map((w) => w.id)).toEqual(legacy.map((w) => w.id));
        expect(records()).not.toContain('WEBHOOKS');
        for (const w of legacy) expect(records().filter((k) => k.startsWith(`webhook-${w.id}-`))).toHaveLength(1);
    });

    it('a webhook created or changed in one run is live in the other within 5 s', async () => {
        const created = (await call(a, 'POST', '/webhooks', { name: 'from A', response: { statusCode: 503, retryAfterSeconds: 9 } })).json() as WebhookView;
        const seenAt = Date.now();
        const inB = await until('run B to list the webhook run A created', async () => (await list(b)).find((w) => w.id === created.id), { timeoutMs: 5000 });
        expect(Date.now() - seenAt).toBeLessThan(5000);
        expect(inB).toMatchObject({ name: 'from A', response: { statusCode: 503, retryAfterSeconds: 9 } });
        const answer = await call(b, 'POST', `/webhook/${created.id}`, 'x');
        expect([answer.status, answer.headers.get('retry-after')]).toEqual([503, '9']);

        expect((await call(b, 'PATCH', `/webhooks/${created.id}`, { response: { statusCode: 202 } })).status).toBe(200);
        await until("run A to answer with run B's change", async () => ((await call(a, 'POST', `/webhook/${created.id}`, 'y')).status === 202 ? true : undefined), { timeoutMs: 5000 });

        expect((await call(a, 'DELETE', `/webhooks/${created.id}`)).status).toBe(204);
        await until('run B to stop serving the deleted webhook', async () => ((await call(b, 'POST', `/webhook/${created.id}`, 'z')).status === 404 ? true : undefined), { timeoutMs: 5000 });
        expect(records().filter((k) => k.includes(created.id))).toEqual([]);
    });

    it('two runs changing different webhooks at once never lose each other’s change', async () => {
        const [first, second] = legacy;
        const [ra, rb] = await Promise.all([
            call(a, 'PATCH', `/webhooks/${first!.id}`, { name: 'named by A', response: { statusCode: 201 } }),
            call(b, 'PATCH', `/webhooks/${second!.id}`, { name: 'named by B', response: { statusCode: 204 } }),
        ]);
        expect([ra.status, rb.status]).toEqual([200, 200]);
        for (const svc of [a, b]) {
            await until('both changes in both runs', async () => {
                const names = (await list(svc)).map((w) => w.name);
                return names.includes('named by A') && names.includes('named by B') ? true : undefined;
            }, { timeoutMs: 5000 });
        }
        expect((await call(a, 'POST', `/webhook/${second!.id}`, 'x')).status).toBe(204);
        expect((await call(b, 'POST', `/webhook/${first!.id}`, 'x')).status).toBe(201);
    });

    it('keeps names, answers and expiry in a fresh container (a migration), and polls at a modest rate', async () => {
        const before = await list(a);
        await a.stop();
        a = await startContainer(sim, runA);
        running.push(a);
        const after = await list(a);
        const shape = (ws: WebhookView[]): unknown => ws.map(({ id, name, createdAt, expiresAt, response }) => ({ id, name, createdAt, expiresAt, response }));
        expect(shape(after)).toEqual(shape(before));
        // API cost of following the other runs: one key listing per 2 s per run, nothing else while idle.
        const keysCalls = (): number => sim.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/keys')).length;
        const reads = (): number => sim.requests.filter((r) => r.method === 'GET' && r.path.includes('/records/webhook-')).length;
        const [k0, r0] = [keysCalls(), reads()];
        await new Promise((r) => setTimeout(r, 10_000));
        const perRunPerMinute = ((keysCalls() - k0) / 2) * 6;
        expect(perRunPerMinute).toBeGreaterThanOrEqual(18);
        expect(perRunPerMinute).toBeLessThanOrEqual(36);
        expect(reads() - r0).toBe(0);
        expect(sim.unhandled).toEqual([]);
    });
});
