// Startup time on a storage folder that already holds many events.
//
//   node bench/startup.mjs [--events 100000] [--runs 5]
//
// Starts the service once to create its webhooks, stops it, loads the events through the storage
// layer (SqliteEventStore.importEvents, as already exported, so there is no outbox to drain), then
// measures spawn → first 200 from GET /ready over several runs (target: median < 2 s).
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, freshDir, median, removeDir, startService, table } from './lib/service.mjs';

const { values: args } = parseArgs({ options: { events: { type: 'string', default: '100000' }, runs: { type: 'string', default: '5' } } });
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);
const BATCH = 5000;
const TARGET_MS = 2000;

ensureBuilt();
const { SqliteEventStore } = await import('../dist/storage/sqlite/event-store.js');

/** A plausible captured JSON event. */
function makeEvent(i, webhookId, now) {
    const body = Buffer.from(JSON.stringify({ type: i % 3 ? 'invoice.paid' : 'customer.created', seq: i, amount: (i * 37) % 10_000, email: `user${i}@example.com` }));
    return {
        id: `bench${String(i).padStart(9, '0')}`,
        webhookId,
        timestamp: now - (EVENTS - i) * 500,
        method: i % 10 ? 'POST' : 'PUT',
        statusCode: i % 50 ? 200 : 500,
        size: body.length,
        processingTime: 1 + (i % 7) / 10,
        requestId: `req${String(i).padStart(9, '0')}`,
        requestUrl: `/webhook/${webhookId}`,
        contentType: 'application/json',
        remoteIp: `10.0.${(i >> 8) & 255}.${i & 255}`,
        userAgent: 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0', 'stripe-signature': `t=${now},v1=abc${i}` },
        query: {},
        bodyKind: 'json',
        bodyRaw: body,
        responseHeaders: { 'Content-Type': 'text/plain; charset=utf-8' },
        responseBody: 'OK',
    };
}

const dir = freshDir('startup');
try {
    const first = await startService({ dir, input: { urlCount: 3 } });
    const webhooks = (await first.json('/info')).system.activeWebhooks.map((w) => w.id);
    await first.stop();

    const loadStarted = performance.now();
    const store = await SqliteEventStore.open({ file: join(dir, 'webhook-debugger', 'events.sqlite'), queryWorkers: 0 });
    const now = Date.now();
    let inserted = 0;
    for (let i = 0; i < EVENTS; i += BATCH) {
        const batch = [];
        for (let j = i; j < Math.min(EVENTS, i + BATCH); j++) batch.push(makeEvent(j, webhooks[j % webhooks.length], now));
        inserted += await store.importEvents(batch);
    }
    await store.close();
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    process.stderr.write(`loaded ${inserted} events in ${loadSeconds.toFixed(1)} s\n`);

    const rows = [];
    const times = [];
    for (let run = 1; run <= RUNS; run++) {
        const svc = await startService({ dir, input: { urlCount: 3 }, readyIntervalMs: 10 });
        const stored = (await svc.json('/system/metrics')).storage.eventsStored;
        const exit = await svc.stop();
        times.push(svc.readyMs);
        rows.push([run, svc.readyMs.toFixed(0), stored, exit.code === 0 ? 'exit 0' : JSON.stringify(exit)]);
        if (stored < EVENTS) throw new Error(`only ${stored} of ${EVENTS} events visible after start`);
    }
    const mid = median(times);
    console.log(`Startup: spawn → first 200 from /ready with ${inserted} stored events, ${RUNS} runs, Node ${process.version}\n`);
    console.log(table(['run', 'ms to ready', 'events stored', 'stop'], rows));
    console.log(`\nmedian: ${mid.toFixed(0)} ms (target < ${TARGET_MS} ms) ${mid < TARGET_MS ? 'PASS' : 'FAIL'}`);
    process.exitCode = mid < TARGET_MS ? 0 : 1;
} finally {
    removeDir(dir);
}
