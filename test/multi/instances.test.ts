import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { pgTestsCanRun } from '../helpers/pg-server.js';
import { getJson, listAllLogs, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { useInstances } from './fixture.js';
import { openRawSse, type RawSse } from '../stream/sse-client.js';

// Several real instances (`node dist/main.js` processes) on one real PostgreSQL server: the
// promises of DECISIONS.md "Several instances, one truth", each checked over HTTP.
const available = pgTestsCanRun('the several-instances tests');

const SSRF = { SSRF_ALLOWLIST: '127.0.0.1/32' };

/** A loopback receiver (on `port`, else any) that keeps the body of every request that reaches it. */
async function startReceiver(port = 0): Promise<{ server: Server; url: string; bodies: string[] }> {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            bodies.push(Buffer.concat(chunks).toString());
            res.end('ok');
        });
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, bodies };
}

async function closeReceiver(server: Server): Promise<void> {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
}

/** Sends one capture; answers its status and the body that identifies it. */
async function capture(svc: ServiceProcess, webhook: string, tag: string): Promise<number> {
    const res = await svc.fetch(`/webhook/${webhook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tag }) });
    await res.arrayBuffer();
    return res.status;
}

/** Waits until GET /ready on `svc` answers `status`. */
async function readyAnswers(svc: ServiceProcess, status: number, timeoutMs: number): Promise<void> {
    await until(`/ready to answer ${status}`, async () => {
        const ready = await svc.fetch('/ready');
        await ready.arrayBuffer();
        return ready.status === status ? true : undefined;
    }, { timeoutMs });
}

/** The log item whose body carries `tag`, as listed by `svc` (a body substring filter). */
async function listedTag(svc: ServiceProcess, tag: string): Promise<{ id: string } | undefined> {
    const page = await getJson<{ items: { id: string }[] }>(svc, `/logs?body=${encodeURIComponent(tag)}&limit=2`);
    return page.items[0];
}

// Each case starts two service processes, which takes 10–25 s on a loaded 2-core machine.
describe.skipIf(!available)('several instances on one PostgreSQL', { timeout: 180_000 }, () => {
    const fx = useInstances('own');
    const startInstance = (url: string, input: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<ServiceProcess> => fx.startInstance(url, input, { ...SSRF, ...env });

    it('two instances started together create urlCount webhooks in all, and serve the same ones', async () => {
        const url = await fx.pg.createDatabase();
        const [a, b] = await Promise.all([startInstance(url, { urlCount: 3 }), startInstance(url, { urlCount: 3 })]);
        const [idsA, idsB] = await Promise.all([webhookIds(a!), webhookIds(b!)]);
        assert.equal(idsA.length, 3);
        assert.deepEqual([...idsB].sort(), [...idsA].sort());
    });

    it('lists on one instance, within 1 s, a capture the other answered; and streams it there within 1 s', async () => {
        const url = await fx.pg.createDatabase();
        const a = await startInstance(url);
        const b = await startInstance(url);
        const [webhook] = await webhookIds(a);
        const stream = await openRawSse(`${b.url}/log-stream`);
        try {
            const lags: number[] = [];
            for (let i = 0; i < 5; i++) {
                const tag = `cross-${i}-${Date.now()}`;
                assert.equal(await capture(a, webhook!, tag), 200);
                const answered = Date.now();
                await until(`instance B to list ${tag}`, () => listedTag(b, tag), { timeoutMs: 1000, intervalMs: 20 });
                await stream.until((s) => s.events().some((e) => JSON.stringify(e.data).includes(tag)), 1000);
                lags.push(Date.now() - answered);
            }
            diagnostic(`answered on A → listed and streamed on B: ${lags.join(', ')} ms`);
        } finally {
            stream.close();
        }
    });

    it('takes in a webhook created, changed and deleted through one instance on the other within 600 ms (a notice as the change commits, not the 2 s poll)', async () => {
        const url = await fx.pg.createDatabase();
        const a = await startInstance(url, { urlCount: 1 });
        const b = await startInstance(url, { urlCount: 1 });
        const send = async (svc: ServiceProcess, id: string): Promise<number> => capture(svc, id, `notice-${Date.now()}`);
        /** How long after `from` B first answered `status` on webhook `id` (polled every 10 ms, up to 600 ms). */
        const seenOnB = async (id: string, status: number, from: number): Promise<number> => {
            await until(`instance B to answer ${status} on ${id}`, async () => ((await send(b, id)) === status ? true : undefined), { timeoutMs: 600, intervalMs: 10 });
            return Date.now() - from;
        };
        const created = await a.fetch('/webhooks', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        assert.equal(created.status, 201);
        const { id } = (await created.json()) as { id: string };
        const lags = [await seenOnB(id, 200, Date.now())];
        const patched = await a.fetch(`/webhooks/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ response: { statusCode: 418 } }) });
        assert.equal(patched.status, 200, await patched.text());
        lags.push(await seenOnB(id, 418, Date.now()));
        const deleted = await a.fetch(`/webhooks/${id}`, { method: 'DELETE' });
        assert.equal(deleted.status, 204);
        lags.push(await seenOnB(id, 404, Date.now()));
        diagnostic(`created / changed / deleted on A → answered so on B: ${lags.join(' / ')} ms`);
    });

    it('resumes a stream on another instance from a Last-Event-ID given by the first', async () => {
        const url = await fx.pg.createDatabase();
        const a = await startInstance(url);
        const b = await startInstance(url);
        const [webhook] = await webhookIds(a);
        const first = await openRawSse(`${a.url}/log-stream`);
        assert.equal(await capture(a, webhook!, 'resume-0'), 200);
        await first.until((s) => s.events().length === 1, 5000);
        const lastId = first.events()[0]!.id!;
        first.close();
        // Missed while no stream was open: one through each instance.
        assert.equal(await capture(a, webhook!, 'resume-1'), 200);
        assert.equal(await capture(b, webhook!, 'resume-2'), 200);
        const resumed = await openRawSse(`${b.url}/log-stream`, { 'Last-Event-ID': lastId });
        try {
            await resumed.until((s) => s.events().length >= 2, 5000);
            const tags = resumed.events().map((e) => JSON.stringify(e.data).match(/resume-\d/)?.[0]);
            assert.deepEqual(tags.slice(0, 2), ['resume-1', 'resume-2'], 'exactly what was missed, in capture order');
        } finally {
            resumed.close();
        }
    });

    it('records a replay made through one instance on the event, as both serve it', async () => {
        const receiver = await startReceiver();
        try {
            const url = await fx.pg.createDatabase();
            const a = await startInstance(url);
            const b = await startInstance(url);
            const [webhook] = await webhookIds(a);
            assert.equal(await capture(a, webhook!, 'replay-me'), 200);
            const item = await until('the capture on B', () => listedTag(b, 'replay-me'), { timeoutMs: 5000 });
            const res = await b.fetch(`/replay/${webhook}/${item.id}?url=${encodeURIComponent(receiver.url)}`, { method: 'POST' });
            assert.equal(res.status, 200, await res.text());
            for (const svc of [a, b]) {
                const entry = await getJson<{ replays: { targetUrl?: string; url?: string }[] }>(svc, `/logs/${item.id}`);
                assert.equal(entry.replays.length, 1, 'the replay is on the event, whichever instance serves it');
            }
        } finally {
            await closeReceiver(receiver.server);
        }
    });

    it('keeps every capture a SIGKILLed instance acknowledged under 16 concurrent senders', async () => {
        const url = await fx.pg.createDatabase();
        const a = await startInstance(url);
        const b = await startInstance(url);
        const [webhook] = await webhookIds(a);
        const acknowledged = new Set<string>();
        let n = 0;
        let killed = false;
        const sender = async (): Promise<void> => {
            while (!killed || n < 50) {
                const tag = `kill-${n++}`;
                try {
                    if ((await capture(a, webhook!, tag)) === 200) acknowledged.add(tag);
                } catch {
                    return; // the instance is gone
                }
            }
        };
        const senders = Array.from({ length: 16 }, sender);
        await until('200 acknowledged captures', async () => (acknowledged.size >= 200 ? true : undefined), { timeoutMs: 30_000 });
        a.signal('SIGKILL');
        killed = true;
        await Promise.all(senders);
        await a.exited;
        const listed = await listAllLogs(b);
        const bodies = new Set<string>();
        for (const item of listed) {
            const entry = await getJson<{ body: { tag?: string } }>(b, `/logs/${item.id}`);
            if (entry.body?.tag) bodies.add(entry.body.tag);
        }
        const missing = [...acknowledged].filter((t) => !bodies.has(t));
        diagnostic(`${acknowledged.size} acknowledged by the killed instance, ${listed.length} listed by the other, ${missing.length} missing`);
        assert.deepEqual(missing, []);
    });

    it('answers 503 while the database is away, and recovers by itself without losing an acknowledged capture', async () => {
        const url = await fx.pg.createDatabase();
        const a = await startInstance(url);
        const b = await startInstance(url);
        const [webhook] = await webhookIds(a);
        const acknowledged: string[] = [];
        for (let i = 0; i < 5; i++) if ((await capture(a, webhook!, `before-${i}`)) === 200) acknowledged.push(`before-${i}`);
        await fx.pg.pause();
        try {
            for (const svc of [a, b]) {
                const res = await svc.fetch(`/webhook/${webhook}`, { method: 'POST', body: 'while-away' });
                assert.equal(res.status, 503, 'ingest refuses what it cannot store');
                assert.ok(res.headers.get('retry-after'), 'with Retry-After');
                assert.match(res.headers.get('content-type') ?? '', /json/);
                await res.arrayBuffer();
                await readyAnswers(svc, 503, 10_000);
            }
        } finally {
            await fx.pg.resume();
        }
        for (const svc of [a, b]) await readyAnswers(svc, 200, 20_000);
        for (let i = 0; i < 5; i++) if ((await capture(b, webhook!, `after-${i}`)) === 200) acknowledged.push(`after-${i}`);
        assert.equal(acknowledged.length, 10, 'both instances take captures again');
        for (const tag of acknowledged) assert.ok(await listedTag(a, tag), `${tag} is stored`);
        assert.equal(await listedTag(a, 'while-away'), undefined, 'nothing half-stored while away');
    });

    it('forwards every capture exactly once with two instances taking captures', async () => {
        const receiver = await startReceiver();
        try {
            const url = await fx.pg.createDatabase();
            const input = { forwardUrl: receiver.url };
            const a = await startInstance(url, input);
            const b = await startInstance(url, input);
            const [webhook] = await webhookIds(a);
            const tags = Array.from({ length: 20 }, (_, i) => `fwd-${i}`);
            await Promise.all(tags.map((tag, i) => capture(i % 2 === 0 ? a : b, webhook!, tag).then((status) => assert.equal(status, 200))));
            const count = (t: string): number => receiver.bodies.filter((body) => body === JSON.stringify({ tag: t })).length;
            await until('every capture forwarded', async () => (tags.every((t) => count(t) > 0) ? true : undefined), { timeoutMs: 20_000 });
            await new Promise((r) => setTimeout(r, 1500)); // a duplicate would arrive by now
            assert.deepEqual(tags.map(count), tags.map(() => 1));
        } finally {
            await closeReceiver(receiver.server);
        }
    });

    it('forwards a killed instance’s backlog from the other instance, once', async () => {
        // The target is down while A captures: A's forwards wait for retries in its backlog.
        const parked = createServer();
        await new Promise<void>((r) => parked.listen(0, '127.0.0.1', r));
        const port = (parked.address() as AddressInfo).port;
        await new Promise<void>((r) => parked.close(() => r()));
        const target = `http://127.0.0.1:${port}/fwd`;
        const url = await fx.pg.createDatabase();
        const input = { forwardUrl: target, replayMaxRetries: 5 };
        const a = await startInstance(url, input);
        const b = await startInstance(url, input);
        const [webhook] = await webhookIds(a);
        const tags = Array.from({ length: 6 }, (_, i) => `orphan-${i}`);
        for (const tag of tags) assert.equal(await capture(a, webhook!, tag), 200);
        a.signal('SIGKILL');
        await a.exited;
        // Now the target comes up on the same port; only B is alive to deliver A's backlog.
        const { server, bodies } = await startReceiver(port);
        try {
            const count = (t: string): number => bodies.filter((body) => body === JSON.stringify({ tag: t })).length;
            await until('the killed instance’s backlog forwarded by the other', async () => (tags.every((t) => count(t) > 0) ? true : undefined), { timeoutMs: 60_000 });
            await new Promise((r) => setTimeout(r, 1500));
            assert.deepEqual(tags.map(count), tags.map(() => 1), 'each once');
            const entry = await getJson<{ forward?: { status: string } }>(b, `/logs/${(await listedTag(b, tags[0]!))!.id}`);
            assert.equal(entry.forward?.status, 'delivered');
        } finally {
            await closeReceiver(server);
        }
    });
});
