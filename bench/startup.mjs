// Startup time on a storage folder that already holds many events.
//
//   node bench/startup.mjs [--events 100000] [--payloads 1000] [--runs 5]
//
// Starts the service once to create its webhooks, stops it, loads the events through the storage
// layer (SqliteEventStore.importEvents, as already exported, so there is no outbox to drain), then
// measures spawn → first 200 from GET /ready over several runs (target: median < 2 s).
//
// The last `--payloads` events are offloaded: each has a 5 MB payload file (sparse, so the disk holds
// little but a reader still gets 5 MB). They are written where earlier builds kept them, in
// the default key-value store, which the SDK's local client reads whole on open: the bench first
// times that open (the old cost), then run 1 includes moving them to key_value_stores/webhook-payloads.
import { closeSync, mkdirSync, openSync, ftruncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBuilt, freshDir, median, removeDir, startService, table } from './lib/service.mjs';

const { values: args } = parseArgs({ options: { events: { type: 'string', default: '100000' }, payloads: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' } } });
const EVENTS = Number(args.events);
const PAYLOADS = Number(args.payloads);
const PAYLOAD_BYTES = 5 * 1024 * 1024 + 1;
const RUNS = Number(args.runs);
const BATCH = 5000;
const TARGET_MS = 2000;

ensureBuilt();
const { SqliteEventStore } = await import('../dist/storage/sqlite/event-store.js');

/** A plausible captured JSON event. */
function makeEvent(i, webhookId, now) {
    const body = Buffer.from(JSON.stringify({ type: i % 3 ? 'invoice.paid' : 'customer.created', seq: i, amount: (i * 37) % 10_000, email: `user${i}@example.com` }));
    const id = `bench${String(i).padStart(9, '0')}`;
    if (i >= EVENTS - PAYLOADS) {
        return { ...envelope(i, id, webhookId, now), contentType: 'application/octet-stream', size: PAYLOAD_BYTES, bodyKind: 'offloaded', blobKey: `payload-${id}` };
    }
    return { ...envelope(i, id, webhookId, now), size: body.length, bodyKind: 'json', bodyRaw: body };
}

function envelope(i, id, webhookId, now) {
    return {
        id,
        webhookId,
        timestamp: now - (EVENTS - i) * 500,
        method: i % 10 ? 'POST' : 'PUT',
        statusCode: i % 50 ? 200 : 500,
        processingTime: 1 + (i % 7) / 10,
        requestId: `req${String(i).padStart(9, '0')}`,
        requestUrl: `/webhook/${webhookId}`,
        contentType: 'application/json',
        remoteIp: `10.0.${(i >> 8) & 255}.${i & 255}`,
        userAgent: 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
        headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0', 'stripe-signature': `t=${now},v1=abc${i}` },
        query: {},
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
    // Payload files as an older version left them: in the default key-value store.
    const legacy = join(dir, 'key_value_stores', 'default');
    mkdirSync(legacy, { recursive: true });
    for (let i = EVENTS - PAYLOADS; i < EVENTS; i++) {
        const fd = openSync(join(legacy, `payload-bench${String(i).padStart(9, '0')}.bin`), 'w');
        writeSync(fd, Buffer.from('x'));
        ftruncateSync(fd, PAYLOAD_BYTES);
        closeSync(fd);
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;
    process.stderr.write(`loaded ${inserted} events (${PAYLOADS} offloaded) in ${loadSeconds.toFixed(1)} s\n`);

    // What every start paid before: the SDK's local client opening the default store with the payloads in it.
    const { MemoryStorage } = await import('@crawlee/memory-storage');
    const { Configuration, KeyValueStore } = await import('apify');
    const sdkStarted = performance.now();
    await KeyValueStore.open(undefined, { config: new Configuration({ storageClient: new MemoryStorage({ localDataDirectory: dir, persistStorage: true }), purgeOnStart: false }) });
    const legacyOpenMs = performance.now() - sdkStarted;
    const payloadId = `bench${String(EVENTS - 1).padStart(9, '0')}`;

    const rows = [];
    const times = [];
    for (let run = 1; run <= RUNS; run++) {
        const svc = await startService({ dir, input: { urlCount: 3 }, readyIntervalMs: 10 });
        const stored = (await svc.json('/system/metrics')).storage.eventsStored;
        const payload = PAYLOADS > 0 ? await fetch(`${svc.url}/logs/${payloadId}/payload`) : undefined;
        const served = payload ? `${payload.status} ${payload.headers.get('content-length')} B` : '-';
        await payload?.body?.cancel();
        const exit = await svc.stop();
        times.push(svc.readyMs);
        rows.push([run, svc.readyMs.toFixed(0), stored, served, exit.code === 0 ? 'exit 0' : JSON.stringify(exit)]);
        if (stored < EVENTS) throw new Error(`only ${stored} of ${EVENTS} events visible after start`);
    }
    const mid = median(times);
    console.log(`Startup: spawn → first 200 from /ready with ${inserted} stored events and ${PAYLOADS} offloaded payloads of ${PAYLOAD_BYTES} B, ${RUNS} runs, Node ${process.version}\n`);
    if (PAYLOADS > 0) console.log(`The SDK's open of the default key-value store holding the payloads (the old layout, paid by every start): ${legacyOpenMs.toFixed(0)} ms\n`);
    console.log(table(['run', 'ms to ready', 'events stored', 'a payload', 'stop'], rows));
    console.log(`\nmedian: ${mid.toFixed(0)} ms (target < ${TARGET_MS} ms) ${mid < TARGET_MS ? 'PASS' : 'FAIL'}`);
    process.exitCode = mid < TARGET_MS ? 0 : 1;
} finally {
    removeDir(dir);
}
