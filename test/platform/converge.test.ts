import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { removeDir, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { openRawSse, type RawSse } from '../stream/sse-client.js';
import { send, type Payload } from './sim/payloads.js';
import { startRun, type PlatformRun } from './sim/run.js';
import { ApifySim } from './sim/server.js';
import { getAuthed, listEvents, payloadBytes, startContainer } from './sim/service.js';

// Two Standby runs alive at once (real `dist/main.js` processes, real SDK, simulated API), with the
// production follow interval: each lists, serves, replays and streams the other's captures.
const AUTH_KEY = 'converge-secret-key';
const ACTOR = 'simConvergeActor1';
const historyName = `webhook-debugger-actor-${ACTOR}`;
const auth = { authorization: `Bearer ${AUTH_KEY}` };

interface Capture {
    payload: Payload;
    requestId: string;
    /** Which run took it (0 or 1). */
    run: number;
    answeredAt: number;
}

const percentile = (values: number[], p: number): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
};

describe('two Standby runs alive at once converge through the named dataset', () => {
    let sim: ApifySim;
    let receiver: Server;
    const received: Buffer[] = [];
    const runs: ServiceProcess[] = [];
    const streams: RawSse[] = [];
    const captures: Capture[] = [];
    /** First time each run listed (in /logs) or streamed each request id. */
    const listedAt = [new Map<string, number>(), new Map<string, number>()];
    const streamedAt = [new Map<string, number>(), new Map<string, number>()];
    let watching = true;

    beforeAll(async () => {
        sim = await new ApifySim().start();
        receiver = createServer((req, res) => {
            const chunks: Buffer[] = [];
            req.on('data', (c: Buffer) => chunks.push(c));
            req.on('end', () => {
                received.push(Buffer.concat(chunks));
                res.end('ok');
            });
        });
        await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
        const input = { urlCount: 1, authKey: AUTH_KEY, rateLimitPerMinute: 0 };
        for (let i = 0; i < 2; i++) {
            const run: PlatformRun = startRun(sim, { actorId: ACTOR, input });
            runs.push(await startContainer(sim, { ...run, env: { ...run.env, SSRF_ALLOWLIST: '127.0.0.1/32' } }));
        }
    }, 120_000);
    afterAll(async () => {
        watching = false;
        for (const s of streams) s.close();
        for (const svc of runs) await svc.stop();
        await sim.close();
        receiver.closeAllConnections();
        await new Promise<void>((r) => receiver.close(() => r()));
        for (const svc of runs) await removeDir(svc.dir);
    });

    it('each run lists, serves, replays and streams the other’s captures within 5 s, none twice', async () => {
        const webhook = (await getAuthed<{ system: { activeWebhooks: { id: string }[] } }>(runs[0]!, '/info', AUTH_KEY)).system.activeWebhooks[0]!.id;
        for (const svc of runs) streams.push(await openRawSse(`${svc.url}/log-stream`, auth));
        // Watchers note when each run first lists and first streams a request id.
        const watchLists = (async () => {
            while (watching) {
                for (let r = 0; r < 2; r++) for (const e of await listEvents(runs[r]!, AUTH_KEY)) if (!listedAt[r]!.has(e.requestId)) listedAt[r]!.set(e.requestId, Date.now());
                await new Promise((res) => setTimeout(res, 100));
            }
        })();
        const exportedAt = new Map<string, number>();
        const watchStreams = setInterval(() => {
            for (const item of sim.state.datasetByName(historyName).items) if (!exportedAt.has(String(item.requestId))) exportedAt.set(String(item.requestId), Date.now());
            for (let r = 0; r < 2; r++) for (const e of streams[r]!.events()) if (!streamedAt[r]!.has(String(e.data.requestId))) streamedAt[r]!.set(String(e.data.requestId), Date.now());
        }, 10);

        // 8 captures to each run, interleaved; one of each run's is offloaded (over 5 MB).
        const started = sim.requests.length;
        const startedAt = Date.now();
        for (let i = 0; i < 8; i++) {
            for (let r = 0; r < 2; r++) {
                const large = i === 3;
                const bytes = large ? randomBytes(6 * 1024 * 1024) : Buffer.from(JSON.stringify({ run: r, i }));
                const payload: Payload = { name: `run ${r} #${i}`, contentType: large ? 'application/octet-stream' : 'application/json', bytes };
                const answer = await send(runs[r]!, webhook, payload, AUTH_KEY);
                expect(answer.status).toBe(200);
                captures.push({ payload, requestId: answer.requestId, run: r, answeredAt: Date.now() });
            }
            await new Promise((res) => setTimeout(res, 150));
        }
        const all = captures.map((c) => c.requestId);
        await until('both runs to list and stream all 16', async () => (listedAt.every((m) => all.every((id) => m.has(id))) && streamedAt.every((m) => all.every((id) => m.has(id))) ? true : undefined), { timeoutMs: 30_000 });
        const capturePhase = { requests: sim.requests.slice(started), ms: Date.now() - startedAt };
        // A few more rounds: nothing may arrive twice later.
        await new Promise((res) => setTimeout(res, 3000));
        watching = false;
        clearInterval(watchStreams);
        await watchLists;

        const lags = { listed: [] as number[], streamed: [] as number[], exported: [] as number[] };
        for (const c of captures) {
            const other = 1 - c.run;
            lags.listed.push(listedAt[other]!.get(c.requestId)! - c.answeredAt);
            lags.streamed.push(streamedAt[other]!.get(c.requestId)! - c.answeredAt);
            lags.exported.push(exportedAt.get(c.requestId)! - c.answeredAt);
        }
        diagnostic(`lag capture answered → listed by the other run: median ${percentile(lags.listed, 0.5)} ms, max ${Math.max(...lags.listed)} ms (/logs polled every ~100 ms)`);
        diagnostic(`lag capture answered → streamed by the other run: median ${percentile(lags.streamed, 0.5)} ms, max ${Math.max(...lags.streamed)} ms`);
        diagnostic(`of which capture answered → in the named dataset: median ${percentile(lags.exported, 0.5)} ms, max ${Math.max(...lags.exported)} ms`);
        diagnostic(`per capture (exported/listed/streamed ms): ${captures.map((c, i) => `${c.payload.name}=${lags.exported[i]}/${lags.listed[i]}/${lags.streamed[i]}`).join(', ')}`);
        expect(Math.max(...lags.listed, ...lags.streamed)).toBeLessThan(5000);

        // /logs: all 16 in each run, no duplicates, the same ids and timestamps in both.
        const lists = await Promise.all(runs.map((svc) => getAuthed<{ items: { id: string; requestId: string; timestamp: string }[] }>(svc, '/logs?limit=100', AUTH_KEY)));
        for (const list of lists) {
            expect(list.items).toHaveLength(16);
            expect(new Set(list.items.map((e) => e.id)).size).toBe(16);
            expect(new Set(list.items.map((e) => e.requestId))).toEqual(new Set(all));
        }
        const byRequest = new Map(lists[0]!.items.map((e) => [e.requestId, e]));
        for (const e of lists[1]!.items) expect(byRequest.get(e.requestId)).toEqual(e);

        // Each stream carried all 16 once: its own captures and the other's.
        for (const s of streams) {
            const ids = s.events().map((e) => String(e.data.requestId));
            expect(ids.sort()).toEqual([...all].sort());
        }

        // The other run's events: entry, payload (offloaded ones from the named store) and replay.
        for (const c of captures) {
            const other = runs[1 - c.run]!;
            const id = byRequest.get(c.requestId)!.id;
            const entry = await getAuthed<{ id: string; requestId: string }>(other, `/logs/${id}`, AUTH_KEY);
            expect(entry.requestId).toBe(c.requestId);
            const got = await payloadBytes(other, id, AUTH_KEY);
            expect(got.status, c.payload.name).toBe(200);
            assert.ok(got.bytes.equals(c.payload.bytes), `${c.payload.name}: payload byte-exact in the other run`);
        }
        for (const c of captures.filter((x) => x.payload.name.endsWith('#0') || x.payload.name.endsWith('#3'))) {
            const other = runs[1 - c.run]!;
            const id = byRequest.get(c.requestId)!.id;
            const before = received.length;
            const res = await other.fetch(`/replay/${webhook}/${id}?url=${encodeURIComponent(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`)}`, { method: 'POST', headers: auth });
            expect(res.status, `${c.payload.name}: ${await res.text()}`).toBe(200);
            expect(received.length).toBe(before + 1);
            assert.ok(received.at(-1)!.equals(c.payload.bytes), `${c.payload.name}: replayed byte-exact by the other run`);
        }

        // What following costs: listings of the named dataset, per run per second.
        const named = sim.state.datasetByName(historyName).id;
        const reads = (list: typeof sim.requests) => list.filter((r) => r.method === 'GET' && r.path === `/v2/datasets/${named}/items`).length;
        diagnostic(`named-dataset reads while capturing: ${(reads(capturePhase.requests) / 2 / (capturePhase.ms / 1000)).toFixed(2)} per run per second over ${(capturePhase.ms / 1000).toFixed(1)} s`);
        const idleFrom = sim.requests.length;
        await new Promise((res) => setTimeout(res, 10_000));
        const idle = reads(sim.requests.slice(idleFrom)) / 2 / 10;
        diagnostic(`named-dataset reads while idle: ${idle.toFixed(2)} per run per second`);
        expect(idle).toBeLessThanOrEqual(1.2);
        expect(sim.unhandled).toEqual([]);
    }, 180_000);
});
