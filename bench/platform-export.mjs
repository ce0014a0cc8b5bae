#!/usr/bin/env node
// Dataset export on the (simulated) Apify platform under sustained ingest.
//
//   npx tsc -p tsconfig.build.json
//   node --no-node-snapshot --import tsx bench/platform-export.mjs [--rate=500] [--seconds=60] [--migrate-at=S --notice=N]
//
// Runs the real service (dist/main.js, real apify SDK) against test/platform/sim (the simulated
// API v2), sends --rate events/s of ~1 KB JSON for --seconds, and samples every 5 s: the outbox
// backlog (/system/metrics), the shared dataset's item count (in the simulation), and RSS (/health).
// With --migrate-at, the platform announces a migration S seconds in with timeRemainingSecs=N and
// SIGKILLs the container N seconds later if it is still there; the run then reports how many
// acknowledged events the dataset lacks (what the move lost).
import { Agent, request } from 'node:http';
import { ApifySim } from '../test/platform/sim/server.ts';
import { startRun } from '../test/platform/sim/run.ts';
import { startServiceProcess, removeDir } from '../test/helpers/process.ts';

const arg = (name, fallback) => {
    const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
    return hit ? Number(hit.split('=')[1]) : fallback;
};
const RATE = arg('rate', 500);
const SECONDS = arg('seconds', 60);
const MIGRATE_AT = arg('migrate-at', undefined);
const NOTICE = arg('notice', 10);

const sim = await new ApifySim().start();
const actorId = 'benchExportActor1';
const platformRun = startRun(sim, { actorId, input: { urlCount: 1, rateLimitPerMinute: 0 } });
const svc = await startServiceProcess({ env: { ...platformRun.env, INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
const history = () => sim.state.datasetByName(`webhook-debugger-actor-${actorId}`).items;
const getJson = async (path) => (await svc.fetch(path)).json();
const [hook] = (await getJson('/info')).system.activeWebhooks.map((w) => w.id);

const agent = new Agent({ keepAlive: true, maxSockets: 128 });
const body = JSON.stringify({ type: 'invoice.paid', data: { pad: 'x'.repeat(900) } });
const acked = new Set();
let failed = 0;
let sentCount = 0;
const post = () =>
    new Promise((resolve) => {
        const req = request(`${svc.url}/webhook/${hook}`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => {
                if (res.statusCode === 200) acked.add(res.headers['x-request-id']);
                else failed++;
                resolve();
            });
        });
        req.on('error', () => {
            failed++;
            resolve();
        });
        req.end(body);
    });

let exited = false;
void svc.exited.then(() => (exited = true));
const start = Date.now();
const samples = [];
let migratedAt;
const sampler = setInterval(async () => {
    if (exited) return;
    try {
        const [m, h] = await Promise.all([getJson('/system/metrics'), getJson('/health')]);
        samples.push({ t: Math.round((Date.now() - start) / 1000), acked: acked.size, backlog: m.sync.outboxBacklog, dataset: history().length, rssMb: h.memory.rss });
    } catch {
        // the service is stopping
    }
}, 5000);

// Open loop: whatever the answers do, by now `elapsed × RATE` requests have been sent (a late tick catches up).
const inflight = new Set();
while (Date.now() - start < SECONDS * 1000 && !exited) {
    const tickStart = Date.now();
    if (MIGRATE_AT !== undefined && migratedAt === undefined && tickStart - start >= MIGRATE_AT * 1000) {
        migratedAt = tickStart;
        sim.emit(platformRun.run.id, 'migrating', { timeRemainingSecs: NOTICE });
        setTimeout(() => svc.signal('SIGKILL'), NOTICE * 1000).unref();
    }
    const due = Math.floor(((tickStart - start) / 1000) * RATE);
    while (sentCount < due) {
        sentCount++;
        const p = post();
        inflight.add(p);
        void p.then(() => inflight.delete(p));
    }
    await new Promise((r) => setTimeout(r, Math.max(0, 10 - (Date.now() - tickStart))));
}
await Promise.all(inflight);
const loadEnd = Date.now();
let drainedAt;
if (!exited) {
    while (Date.now() - loadEnd < 120_000 && history().length < acked.size) await new Promise((r) => setTimeout(r, 100));
    drainedAt = Date.now();
}
clearInterval(sampler);
const exit = exited ? await svc.exited : undefined;
const inDataset = new Set(history().map((i) => i.requestId));
const lost = [...acked].filter((id) => !inDataset.has(id)).length;
console.table(samples);
console.log(JSON.stringify({
    rate: RATE, seconds: SECONDS, sent: sentCount, acked: acked.size, failedOrRefused: failed,
    achievedRate: Math.round(acked.size / ((loadEnd - start) / 1000)),
    maxBacklog: Math.max(0, ...samples.map((s) => s.backlog)),
    maxRssMb: Math.max(0, ...samples.map((s) => s.rssMb)),
    drainAfterLoadMs: drainedAt === undefined ? null : drainedAt - loadEnd,
    migration: migratedAt === undefined ? null : { at: MIGRATE_AT, notice: NOTICE, exit },
    datasetItems: history().length, lostAcknowledged: lost,
}, null, 2));
await svc.stop();
agent.destroy();
await sim.close();
await removeDir(svc.dir);
