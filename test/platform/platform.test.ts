import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { removeDir, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { payloadsOfEveryKind, send, type Payload, type Sent } from './sim/payloads.js';
import { startRun, type PlatformRun } from './sim/run.js';
import { ApifySim } from './sim/server.js';
import { getAuthed, listEvents, payloadBytes, startContainer, waitForEvents } from './sim/service.js';

// The real service (`dist/main.js`, run `npx tsc -p tsconfig.build.json` first) with the real
// apify SDK, against a simulated Apify API: a migration to a fresh container, a new Standby run.
const AUTH_KEY = 'platform-secret-key';
const ACTOR = 'simWebhookActor01';
const historyName = `webhook-debugger-actor-${ACTOR}`;

describe('on the Apify platform (simulated API, real SDK, real process)', () => {
    let sim: ApifySim;
    let first: PlatformRun;
    const dirs: string[] = [];
    const running: ServiceProcess[] = [];
    const sent: Sent[] = [];
    let webhooks: string[] = [];
    const payloads = payloadsOfEveryKind();

    const container = async (run: PlatformRun): Promise<ServiceProcess> => {
        const svc = await startContainer(sim, run);
        running.push(svc);
        dirs.push(svc.dir);
        return svc;
    };
    const history = () => sim.state.datasetByName(historyName).items;

    beforeAll(async () => {
        sim = await new ApifySim().start();
        first = startRun(sim, { actorId: ACTOR, input: { urlCount: 2, authKey: AUTH_KEY, rateLimitPerMinute: 0 } });
    });
    afterAll(async () => {
        for (const svc of running) await svc.stop();
        await sim.close();
        for (const dir of dirs) await removeDir(dir);
    });

    it('reads its input from the INPUT record, secret field included, and exports captures that pass the dataset schema', async () => {
        const svc = await container(first);
        const input = sim.state.kvs.get(first.run.defaultKeyValueStoreId)!.records.get('INPUT')!.body.toString();
        expect(input).not.toContain(AUTH_KEY); // the platform stores the secret encrypted
        expect((await svc.fetch('/info')).status).toBe(401);
        const info = await getAuthed<{ system: { activeWebhooks: { id: string }[] } }>(svc, '/info', AUTH_KEY);
        webhooks = info.system.activeWebhooks.map((w) => w.id);
        expect(webhooks).toHaveLength(2);

        for (const payload of payloads) {
            const answer = await send(svc, webhooks[0]!, payload, AUTH_KEY);
            expect(answer.status, payload.name).toBe(200);
            sent.push({ payload, requestId: answer.requestId });
        }
        // Each batch goes to the named dataset and to the run's own: two pushes, either may land first.
        const runDataset = () => sim.state.datasets.get(first.run.defaultDatasetId)!.items;
        await until('the export to both datasets', async () => (history().length >= sent.length && runDataset().length >= sent.length ? true : undefined));
        const exported = new Set(history().map((i) => i.requestId));
        for (const s of sent) expect(exported.has(s.requestId), s.payload.name).toBe(true);
        // The platform validated every push against .actor/dataset_schema.json and refused none.
        expect(sim.requests.filter((r) => r.path.endsWith('/items') && r.method === 'POST' && r.status === 400)).toEqual([]);
        // The run's own dataset (what the console shows for it) gets them too.
        expect(runDataset().map((i) => i.requestId)).toEqual(history().map((i) => i.requestId));
        // Offloaded bodies are records of the named store, stored byte-exact with their type.
        const store = sim.state.kvsByName(historyName);
        for (const s of sent.filter((x) => x.payload.bytes.length > 5 * 1024 * 1024)) {
            const item = history().find((i) => i.requestId === s.requestId)!;
            const record = store.records.get(`payload-${String(item.id)}`);
            assert.ok(record, `${s.payload.name} is a record of the named store`);
            assert.ok(record.body.equals(s.payload.bytes), `${s.payload.name} stored byte-exact`);
            expect(record.contentType).toBe(s.payload.contentType);
        }
        expect(sim.requests.some((r) => r.encoding === 'br' || r.encoding === 'gzip')).toBe(true);
        expect(sim.unhandled).toEqual([]);
    });

    it('keeps capturing after `migrating`, flushes until its own stop, and a fresh container of the run has every acknowledged event', async () => {
        const svc = running[running.length - 1]!;
        sim.emit(first.run.id, 'migrating', { timeRemainingSecs: 7 });
        const migratedAt = Date.now();
        const small: Payload = { name: 'during migration', contentType: 'application/json', bytes: Buffer.from('{"during":"migration"}') };
        let refused = 0;
        let lastAnswerAt = 0;
        // Send until the service stops by itself (timeRemainingSecs minus its reserve for the final flush).
        while (Date.now() - migratedAt < 6000) {
            try {
                const answer = await send(svc, webhooks[1]!, small, AUTH_KEY);
                expect(answer.status).toBe(200);
                sent.push({ payload: small, requestId: answer.requestId });
                lastAnswerAt = Date.now();
            } catch {
                refused++;
                break;
            }
            await new Promise((r) => setTimeout(r, 50));
        }
        const exit = await svc.exited;
        expect(exit).toEqual({ code: 0, signal: null });
        diagnostic(`answered for ${lastAnswerAt - migratedAt} ms after migrating (${sent.length - payloads.length} events), then stopped`);
        expect(lastAnswerAt - migratedAt).toBeGreaterThan(1500); // the door stayed open, unlike a stop on the event
        expect(refused).toBe(1);
        expect(svc.output()).toMatch(/Shutting down \(migrating\)/);
        // Everything acknowledged is in the shared dataset before the container is gone.
        const exported = new Set(history().map((i) => i.requestId));
        expect(sent.filter((s) => !exported.has(s.requestId)).map((s) => s.requestId)).toEqual([]);

        // The same run continues in a new container on a fresh disk.
        const moved = await container(first);
        expect(moved.dir).not.toBe(svc.dir);
        const ids = (await getAuthed<{ system: { activeWebhooks: { id: string }[] } }>(moved, '/info', AUTH_KEY)).system.activeWebhooks.map((w) => w.id);
        expect(ids.sort()).toEqual([...webhooks].sort());
        const byRequest = await waitForEvents(moved, sent.map((s) => s.requestId), AUTH_KEY);
        for (const s of sent.slice(0, payloads.length)) {
            const got = await payloadBytes(moved, byRequest.get(s.requestId)!, AUTH_KEY);
            expect(got.status, s.payload.name).toBe(200);
            assert.ok(got.bytes.equals(s.payload.bytes), `${s.payload.name}: ${got.bytes.length} bytes back for ${s.payload.bytes.length} sent`);
        }
    });

    it('a new Standby run (new run id, new default storages) answers the first run’s webhook URLs and lists their history', async () => {
        for (const svc of running) await svc.stop();
        const second = startRun(sim, { actorId: ACTOR, input: { urlCount: 2, authKey: AUTH_KEY, rateLimitPerMinute: 0 } });
        expect(second.run.id).not.toBe(first.run.id);
        expect(second.run.defaultKeyValueStoreId).not.toBe(first.run.defaultKeyValueStoreId);
        const svc = await container(second);
        const byRequest = await waitForEvents(svc, sent.map((s) => s.requestId), AUTH_KEY);
        expect(byRequest.size).toBeGreaterThanOrEqual(sent.length);
        for (const id of webhooks) {
            const answer = await send(svc, id, { name: 'next run', contentType: 'text/plain', bytes: Buffer.from(`to ${id}`) }, AUTH_KEY);
            expect(answer.status).toBe(200);
        }
        const large = sent.find((s) => s.payload.name === 'large json')!;
        const got = await payloadBytes(svc, byRequest.get(large.requestId)!, AUTH_KEY);
        assert.ok(got.bytes.equals(large.payload.bytes), 'a payload offloaded by the first run reads back byte-exact');
        await until('the new run’s own dataset', async () => (sim.state.datasets.get(second.run.defaultDatasetId)!.items.length === 2 ? true : undefined));
        // Restored history is not exported again: the new run's dataset holds only its own two events.
        expect((await listEvents(svc, AUTH_KEY)).length).toBe(sent.length + 2);
    });
});
