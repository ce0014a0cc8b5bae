import assert from 'node:assert/strict';
import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { pgPass, storageEnv } from '../helpers/pg-pass.js';
import { json, startTestService, type TestService } from '../helpers/service.js';

/**
 * The durability the service's PostgreSQL server gives, read from the server itself: `full` when
 * every commit is flushed to disk before it is answered (fsync on, synchronous_commit not off), else
 * `other` (the pass's throwaway server runs with fsync=off).
 */
async function pgDurabilityOf(dir: string): Promise<string> {
    const client = new pg.Client({ connectionString: (await storageEnv(dir)).DATABASE_URL });
    await client.connect();
    try {
        const { rows } = await client.query<{ fsync: string; sc: string }>(`SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc`);
        return rows[0]!.fsync === 'on' && rows[0]!.sc !== 'off' ? 'full' : 'other';
    } finally {
        await client.end();
    }
}

/** The backend this pass runs on (the PostgreSQL pass sets DATABASE_URL for every service). */
const BACKEND = pgPass ? 'postgres' : 'sqlite';

describe('probes, info and metrics', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: 'k', urlCount: 2 }, env: { ACTOR_WEB_SERVER_URL: 'https://abc.apify.example/' } });
    });
    afterAll(() => svc.close());
    const auth = { authorization: 'Bearer k' };

    it('GET /health reports liveness', async () => {
        const body = await json<Record<string, unknown> & { memory: Record<string, unknown> }>(await svc.fetch('/health'));
        assert.equal(body.status, 'healthy');
        assert.equal(typeof body.uptime, 'number');
        assert.ok(!Number.isNaN(Date.parse(body.timestamp as string)));
        assert.equal(body.memory.unit, 'MB');
        for (const k of ['heapUsed', 'heapTotal', 'rss']) assert.equal(typeof body.memory[k], 'number');
    });

    it('GET /ready checks database and webhooks, and names the storage backend', async () => {
        const res = await svc.fetch('/ready');
        assert.equal(res.status, 200);
        const body = await json<{ status: string; checks: Record<string, { status: string; message?: string; backend?: string }> }>(res);
        assert.equal(body.status, 'ready');
        assert.equal(body.checks.database!.status, 'ok');
        assert.equal(body.checks.database!.backend, BACKEND);
        assert.equal(body.checks.webhooks!.status, 'ok');
        assert.match(body.checks.webhooks!.message ?? '', /2 active webhooks/);
    });

    it('answers the platform readiness probe on GET / before auth', async () => {
        const res = await svc.fetch('/', { headers: { 'x-apify-container-server-readiness-probe': '1' } });
        assert.equal(res.status, 200);
        assert.equal((await svc.fetch('/')).status, 401);
    });

    it('GET /info carries every field with absolute URLs from the public base URL', async () => {
        const body = await json<{
            version: string; status: string; features: string[]; docs: string; endpoints: Record<string, string>;
            system: { authActive: boolean; retentionHours: number; maxPayloadLimit: string; webhookCount: number; activeWebhooks: unknown[]; storage: { backend: string; healthy: boolean } };
        }>(await svc.fetch('/info', { headers: auth }));
        assert.deepEqual(body.system.storage, { backend: BACKEND, healthy: true });
        assert.equal(body.version, '3.0.5');
        assert.equal(typeof body.status, 'string');
        assert.equal(body.system.authActive, true);
        assert.equal(body.system.retentionHours, 24);
        assert.equal(body.system.maxPayloadLimit, '10MB');
        assert.equal(body.system.webhookCount, 2);
        assert.equal(body.system.activeWebhooks.length, 2);
        assert.ok(Array.isArray(body.features) && body.features.includes('auth'));
        const base = 'https://abc.apify.example';
        assert.deepEqual(Object.keys(body.endpoints).sort(), ['health', 'info', 'logDetail', 'logPayload', 'logs', 'ready', 'replay', 'stream', 'systemMetrics', 'webhook']);
        assert.equal(body.endpoints.logs, `${base}/logs?limit=100`);
        assert.match(body.endpoints.replay ?? '', /^https:\/\/abc\.apify\.example\/replay\/.*\?url=/);
        for (const url of Object.values(body.endpoints)) assert.ok(String(url).startsWith(base));
        assert.equal(body.docs, `${base}/openapi.json`);
        const docs = await json<{ openapi: string; paths: Record<string, unknown> }>(await svc.fetch('/openapi.json', { headers: auth }));
        assert.match(docs.openapi, /^3\./);
        assert.ok('/logs' in docs.paths && '/webhook/{id}' in docs.paths);
    });

    it('GET /system/metrics reports storage, sync and ingest figures', async () => {
        for (const status of [200, 200, 404]) {
            await svc.fetch(`/webhook/${svc.webhookId}?__status=${status}`, { method: 'POST', headers: auth, body: 'm' });
        }
        const body = await json<{
            storage: { backend: string; healthy: boolean; problem: string | null; eventsStored: number; offloadedPayloads: number; databaseBytes: number; durability: string };
            sync: Record<string, unknown> & { outboxBacklog: number };
            ingest: { byStatus: Record<string, number>; processingTimeMs: Record<string, number> };
        }>(await svc.fetch('/system/metrics', { headers: auth }));
        assert.equal(body.storage.backend, BACKEND);
        assert.equal(body.storage.healthy, true);
        assert.equal(body.storage.problem, null);
        assert.equal(body.storage.eventsStored, 3);
        assert.equal(body.storage.offloadedPayloads, 0);
        assert.ok(body.storage.databaseBytes > 0);
        if (pgPass) assert.equal(body.storage.durability, await pgDurabilityOf(svc.dir), 'PostgreSQL reports what its server settings give (fsync, synchronous_commit)');
        else assert.equal(body.storage.durability, 'normal', 'by default SQLite reports synchronous=NORMAL (WAL, no fsync per commit)');
        assert.equal(typeof body.sync.outboxBacklog, 'number');
        assert.ok('lastDatasetFlushAt' in body.sync);
        assert.deepEqual(body.ingest.byStatus, { 200: 2, 404: 1 });
        assert.equal(body.ingest.processingTimeMs.samples, 3);
        for (const k of ['p50', 'p95', 'p99']) assert.equal(typeof body.ingest.processingTimeMs[k], 'number');
    });

    it('uses the public base URL in detailUrl', async () => {
        const body = await json<{ items: { detailUrl: string; id: string }[] }>(await svc.fetch('/logs', { headers: auth }));
        assert.equal(body.items[0]!.detailUrl, `https://abc.apify.example/logs/${body.items[0]!.id}`);
    });

    it('answers unknown routes with 404 JSON and wrong methods with 405', async () => {
        const missing = await svc.fetch('/nope');
        assert.equal(missing.status, 404);
        assert.equal((await json(missing)).error, 'Not Found');
        const wrong = await svc.fetch('/logs', { method: 'PUT', headers: auth });
        assert.equal(wrong.status, 405);
        assert.equal(wrong.headers.get('allow'), 'GET, DELETE');
    });
});

/** Opens a connection and sends all of a request but its final CRLF: an active connection that a draining server keeps. */
function heldRequest(port: number, head: string): Promise<{ finish(): Promise<string> }> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
            socket.write(head);
            resolve({
                finish: () => new Promise<string>((done) => {
                    let out = '';
                    socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
                    socket.on('close', () => done(out));
                    socket.write('\r\n');
                }),
            });
        });
        socket.on('error', reject);
    });
}

describe('readiness during a real shutdown', () => {
    let svc: TestService;
    const clock = new ManualClock();
    beforeAll(async () => {
        svc = await startTestService({ input: { responseDelayMs: 10_000, rateLimitPerMinute: 0 }, clock });
    });
    afterAll(() => svc.close());

    it('reports not_ready with 503 once shutdown starts', async () => {
        assert.equal((await svc.fetch('/ready')).status, 200);
        // An in-flight capture, held by responseDelayMs on the injected clock: the server keeps draining until it is answered.
        const inflight = svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'in flight' });
        await clock.whenSleeping(1);
        const port = Number(new URL(svc.url).port);
        const probe = await heldRequest(port, 'GET /ready HTTP/1.1\r\nHost: x\r\n');

        const stopping = svc.stop({ drainMs: 15_000 });
        const raw = await probe.finish();
        assert.match(raw, /^HTTP\/1\.1 503 /, 'the draining server answers /ready with 503');
        assert.match(raw, /\r\nconnection: close\r\n/i);
        const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as { status: string; checks: Record<string, { status: string }> };
        assert.equal(body.status, 'not_ready');
        assert.equal(body.checks.database?.status, 'ok', 'storage is still open while the listener drains');
        await assert.rejects(fetch(`${svc.url}/ready`), 'new connections are refused');

        clock.advance(10_000);
        const answered = await inflight;
        assert.equal(answered.status, 200, 'the in-flight request is still answered during the drain');
        await stopping;
    });
});
