import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startService } from '../../src/compose.js';
import { silentLogger } from '../../src/lib/log.js';
import type { ForwardOutcome } from '../../src/storage/types.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { expectCapWhileHeld, startHoldingReceiver, startReceiver } from '../replay/receiver.js';
import { until } from '../helpers/until.js';

/** Takes the flood rule out (forwards trickle while capture is flooded), for tests that count what is handed out in a burst. */
const NO_FLOOD_RULE = { inFlight: 64, everyMs: 0 };

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** Sends a capture; returns its answer status and stored id. */
async function capture(svc: { fetch: TestService['fetch'] }, webhookId: string, init: RequestInit): Promise<{ status: number; id: string }> {
    const res = await svc.fetch(`/webhook/${webhookId}`, init);
    const requestId = res.headers.get('x-request-id');
    const items = (await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${requestId}`))).items;
    return { status: res.status, id: items[0]!.id };
}

/** Polls GET /logs/:id until its forwarding outcome is final (generous: a busy host may slow deliveries). */
function outcomeOf(svc: { fetch: TestService['fetch'] }, id: string): Promise<ForwardOutcome> {
    return until('a forwarding outcome recorded', async () => (await json<{ forward?: ForwardOutcome }>(await svc.fetch(`/logs/${id}`))).forward, { timeoutMs: 30_000, intervalMs: 20 });
}

describe('forwarding (forwardUrl)', () => {
    it('forwards method, byte-exact body and headers minus masked/transport ones, without delaying the sender, and records the outcome', async () => {
        let release: () => void = () => undefined;
        const held = new Promise<void>((r) => (release = r));
        const target = await startReceiver((_req, res) => void held.then(() => res.writeHead(201).end('thanks')));
        const svc = await startTestService({
            input: { rateLimitPerMinute: 0, forwardUrl: `${target.url}/in?src=debugger` },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
            overrides: { offloadThreshold: 4096 },
        });
        try {
            const body = Buffer.from('{"amount": 10,  "note":"\u00e9"}');
            const sent = await capture(svc, svc.webhookId, { method: 'PATCH', body, headers: { 'Content-Type': 'application/json', Authorization: 'Bearer s3cret', Cookie: 'a=b', 'X-Signature': 'sig' } });
            // The sender has its answer while the target still holds the forwarded request open.
            expect(sent.status).toBe(200);
            const [got] = await target.waitFor(1);
            expect(got!.method).toBe('PATCH');
            expect(got!.url).toBe('/in?src=debugger');
            expect(sha(got!.body)).toBe(sha(body));
            expect(got!.headers['x-signature']).toBe('sig');
            expect(got!.headers['content-type']).toBe('application/json');
            expect(got!.headers.authorization).toBeUndefined();
            expect(got!.headers.cookie).toBeUndefined();
            expect(got!.headers['x-webhook-debugger-forwarded-by']).toMatch(/^[\w-]{12}$/);
            expect((await json<{ forward?: unknown }>(await svc.fetch(`/logs/${sent.id}`))).forward).toBeUndefined();
            release();
            expect(await outcomeOf(svc, sent.id)).toEqual({ status: 'delivered', url: `${target.url}/in?src=debugger`, statusCode: 201, attempts: 1, error: null, at: expect.any(String) });

            const big = randomBytes(300_000);
            const offloaded = await capture(svc, svc.webhookId, { method: 'POST', body: big, headers: { 'Content-Type': 'application/octet-stream' } });
            expect((await outcomeOf(svc, offloaded.id)).status).toBe('delivered');
            expect(sha(target.requests[1]!.body)).toBe(sha(big));
        } finally {
            release();
            await svc.close();
            await target.close();
        }
    });

    it('forwards captures without a body (GET, HEAD, an empty POST) on the first attempt', async () => {
        const target = await startReceiver((_req, res) => res.writeHead(204).end());
        // The first delivery waits for the delivery thread to load got-scraping (~0.5 s of CPU; 3-6 s
        // measured on a host at load 10), so the bound sits well under a long attempt time limit
        // rather than close to a short one. A hang would still take the whole limit, and fail.
        const svc = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: target.url, replayTimeoutMs: 20_000 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        try {
            for (const method of ['GET', 'HEAD', 'POST']) {
                const sent = await capture(svc, svc.webhookId, { method });
                const started = Date.now();
                expect(await outcomeOf(svc, sent.id), method).toMatchObject({ status: 'delivered', statusCode: 204, attempts: 1 });
                // Well before the attempt's time limit (a bodyless request used to hang until it).
                expect(Date.now() - started, method).toBeLessThan(10_000);
                const got = target.requests.at(-1)!;
                expect(got.method).toBe(method);
                expect(got.body.length).toBe(0);
            }
        } finally {
            await svc.close();
            await target.close();
        }
    });

    it('streams at most 4 offloaded bodies at once; the captures behind them wait and then go out', async () => {
        const held: ServerResponse[] = [];
        const target = await startReceiver((_req, res) => held.push(res));
        const svc = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: target.url }, env: { SSRF_ALLOWLIST: '127.0.0.1' }, overrides: { offloadThreshold: 4096 } });
        try {
            const bodies = Array.from({ length: 6 }, () => randomBytes(20_000));
            const sent = [];
            for (const body of bodies) sent.push(await capture(svc, svc.webhookId, { method: 'POST', body }));
            await expectCapWhileHeld(target, held, 4, 6);
            for (const s of sent) expect((await outcomeOf(svc, s.id)).status).toBe('delivered');
            // The 4 on the wire are the first 4 captures; the last 2 went out only once those were
            // answered. Within each group the streams start together (each first opens its blob,
            // a database read with PostgreSQL), so any of them may arrive first.
            const arrived = target.requests.map((r) => sha(r.body));
            expect(arrived.slice(0, 4).sort()).toEqual(bodies.slice(0, 4).map(sha).sort());
            expect(arrived.slice(4).sort()).toEqual(bodies.slice(4).map(sha).sort());
        } finally {
            for (const res of held) res.end();
            await svc.close();
            await target.close();
        }
    });

    it('a stop keeps unfinished forwards in the backlog; the next start sends them, so none is lost', async () => {
        // The first capture is answered after 300 ms; the others are held until released: 64 are
        // handed out at once and some are on the wire (16 per delivery thread) at the stop.
        const target = await startHoldingReceiver(
            (req, res) => (req.body.toString() === 'slow' ? setTimeout(() => res.writeHead(202).end(), 300) : res.writeHead(201).end()),
            (req) => req.body.toString() !== 'slow',
        );
        const input = { rateLimitPerMinute: 0, forwardUrl: target.url, replayTimeoutMs: 60_000 };
        const svc = await startTestService({ input, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        let restarted: TestService | undefined;
        try {
            const slow = await capture(svc, svc.webhookId, { method: 'POST', body: 'slow' });
            const hung = [];
            for (let i = 0; i < 70; i++) hung.push(await capture(svc, svc.webhookId, { method: 'POST', body: `hung-${i}` }));
            await target.waitFor(17);
            const stopping = Date.now();
            await svc.stop({ drainMs: 1000, forwardMs: 2000 });
            // Bounded by the grace, not by the 60 s timeout of the held deliveries.
            expect(Date.now() - stopping).toBeLessThan(5000);
            const beforeRestart = target.requests.length;
            target.release();

            restarted = await startTestService({ dir: svc.dir, input, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
            expect(await outcomeOf(restarted, slow.id)).toMatchObject({ status: 'delivered', statusCode: 202, attempts: 1 });
            for (const h of hung) expect(await outcomeOf(restarted, h.id)).toMatchObject({ status: 'delivered', statusCode: 201, attempts: 1 });
            // After the restart every held capture went out once more; the slow one did not.
            const resent = target.requests.slice(beforeRestart).map((r) => r.body.toString());
            expect(resent.sort()).toEqual(hung.map((_, i) => `hung-${i}`).sort());
            expect((await json<{ forwarding: { backlog: number; dropped: number } }>(await restarted.fetch('/system/metrics'))).forwarding).toMatchObject({ backlog: 0, dropped: 0 });
        } finally {
            await (restarted ?? svc).close();
            await target.close();
        }
    });

    it('retries a dead target a bounded number of times and records the failure; refuses blocked targets', async () => {
        const gone = await startReceiver();
        await gone.close();
        const svc = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: gone.url, replayMaxRetries: 2 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        const blocked = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: 'http://169.254.169.254/latest/meta-data/' } });
        try {
            const sent = await capture(svc, svc.webhookId, { method: 'POST', body: 'x' });
            expect(await outcomeOf(svc, sent.id)).toMatchObject({ status: 'failed', statusCode: null, attempts: 2, error: expect.stringContaining('ECONNREFUSED') });
            const refused = await capture(blocked, blocked.webhookId, { method: 'POST', body: 'x' });
            expect(refused.status).toBe(200);
            expect(await outcomeOf(blocked, refused.id)).toMatchObject({ status: 'failed', attempts: 0, error: 'URL resolves to internal/reserved IP range' });
        } finally {
            await svc.close();
            await blocked.close();
        }
    });

    it('a forward that loops back into this instance is answered 422 and stored, and the chain stops', async () => {
        const port = await freePort();
        const dir = await mkdtemp(join(tmpdir(), 'whd-loop-'));
        // The webhook ids are only known after the start: forward to the first one via a second start.
        const first = await startService({ input: { rateLimitPerMinute: 0 }, env: { CRAWLEE_STORAGE_DIR: dir }, port, log: silentLogger });
        const webhookId = first.deps.webhooks.active()[0]!.id;
        await first.stop({ drainMs: 1000 });
        const svc = await startService({
            input: { rateLimitPerMinute: 0, forwardUrl: `http://127.0.0.1:${port}/webhook/${webhookId}` },
            env: { CRAWLEE_STORAGE_DIR: dir, SSRF_ALLOWLIST: '127.0.0.1' },
            port,
            log: silentLogger,
        });
        const client = { fetch: (path: string, init?: RequestInit) => fetch(`${svc.url}${path}`, init) };
        try {
            const sent = await capture(client, webhookId, { method: 'POST', body: '{"loop":true}', headers: { 'Content-Type': 'application/json' } });
            expect(sent.status).toBe(200);
            expect(await outcomeOf(client, sent.id)).toMatchObject({ status: 'delivered', statusCode: 422 });
            await new Promise((r) => setTimeout(r, 300));
            const items = (await json<{ items: { id: string; statusCode: number }[] }>(await client.fetch('/logs?sort=timestamp:asc'))).items;
            expect(items.map((i) => i.statusCode)).toEqual([200, 422]);
            const looped = await json<{ forward?: unknown; body: unknown; responseBody: { message: string } }>(await client.fetch(`/logs/${items[1]!.id}`));
            expect(looped.body).toEqual({ loop: true });
            expect(looped.forward).toBeUndefined();
            expect(JSON.stringify(looped.responseBody)).toMatch(/loop/i);
        } finally {
            await svc.stop({ drainMs: 1000 });
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('in a flood of captures, forwards only trickle out (at most 10 a second) yet keep moving, and the rest go out at full rate once it ends', async () => {
        // The target answers after 20 ms; it records when each forward arrived and how many it had at once.
        let open = 0;
        const arrivals: { at: number; open: number }[] = [];
        const target = await startReceiver((_r, res) => {
            open++;
            arrivals.push({ at: performance.now(), open });
            setTimeout(() => {
                open--;
                res.end('ok');
            }, 20);
        });
        const svc = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: target.url }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        try {
            // One forward first, so the delivery thread has loaded its HTTP client (a cold load under the
            // test's TypeScript loader can outlast the flood; the flood is what this test is about).
            expect((await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'warm-up' })).status).toBe(200);
            await target.waitFor(1, 30_000);
            // The flood: this thread (the capture thread too) ~95 % busy for 1.5 s, with a capture every turn.
            const answers: Promise<Response>[] = [];
            let midFlood: Promise<Response> | undefined;
            const start = performance.now();
            while (performance.now() - start < 1500) {
                answers.push(svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: `flood-${answers.length}` }));
                if (!midFlood && performance.now() - start > 1000) midFlood = svc.fetch('/system/metrics');
                const until = performance.now() + 20;
                while (performance.now() < until);
                await new Promise((r) => setImmediate(r));
            }
            const end = performance.now();
            const statuses = (await Promise.all(answers)).map((a) => a.status);
            expect(statuses).toEqual(answers.map(() => 200));
            // The first captures go out before the flood is noticed (it is sampled every 100 ms): on a busy
            // host a few may still be on their way in the second looked at (without the rule, ~50 arrive in
            // it). After that, one start per 100 ms at most, and never none.
            const during = arrivals.filter((a) => a.at > start + 500 && a.at <= end);
            expect(during.length).toBeGreaterThanOrEqual(1);
            expect(during.length).toBeLessThanOrEqual(16);
            // /system/metrics says so while it lasts.
            expect((await json<{ forwarding: { trickling: boolean } }>(await midFlood!)).forwarding.trickling).toBe(true);
            // Once it ends, the backlog goes out at full rate: several at once, every capture exactly once.
            await target.waitFor(answers.length + 1, 30_000);
            expect(Math.max(...arrivals.filter((a) => a.at > end).map((a) => a.open))).toBeGreaterThan(1);
            expect(target.requests.map((r) => r.body.toString()).sort()).toEqual(['warm-up', ...answers.map((_, i) => `flood-${i}`)].sort());
            expect((await json<{ forwarding: { trickling: boolean } }>(await svc.fetch('/system/metrics'))).forwarding.trickling).toBe(false);
        } finally {
            await svc.close();
            await target.close();
        }
    });

    it('a hung target never grows memory past its bound, and loses nothing: what waits beyond it is read back from storage, byte-exact, in order', async () => {
        const target = await startHoldingReceiver();
        const svc = await startTestService({ input: { rateLimitPerMinute: 0, forwardUrl: target.url, replayTimeoutMs: 60_000 }, env: { SSRF_ALLOWLIST: '127.0.0.1' }, overrides: { forwardQueue: 100, forwardInFlood: NO_FLOOD_RULE } });
        try {
            const bodies: Buffer[] = [];
            for (let batch = 0; batch < 6; batch++) {
                const sent = Array.from({ length: 50 }, (_, i) => Buffer.concat([Buffer.from(`n-${batch * 50 + i}:`), randomBytes(64)]));
                const answers = await Promise.all(sent.map((body) => svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body })));
                expect(answers.map((a) => a.status)).toEqual(sent.map(() => 200));
                bodies.push(...sent);
            }
            await target.waitFor(16);
            await new Promise((r) => setTimeout(r, 200));
            // 64 handed out (16 on the wire per delivery thread), 100 kept in memory, the rest only in storage.
            const waiting = await json<{ forwarding: { backlog: number; heldInMemory: number; dropped: number } }>(await svc.fetch('/system/metrics'));
            expect(waiting.forwarding).toEqual({ delivered: 0, failed: 0, dropped: 0, backlog: 300, heldInMemory: 100, trickling: expect.any(Boolean) });

            target.release();
            await target.waitFor(300, 30_000);
            const ids = (await json<{ items: { id: string }[] }>(await svc.fetch('/logs?limit=1000&sort=timestamp:asc'))).items.map((i) => i.id);
            expect(ids).toHaveLength(300);
            for (const id of ids) expect((await outcomeOf(svc, id)).status).toBe('delivered');
            // Each exactly once, byte-exact, whether it waited in memory or only in storage.
            const got = target.requests.map((r) => r.body.toString('latin1')).sort();
            expect(got).toEqual(bodies.map((b) => b.toString('latin1')).sort());
            expect((await json<{ forwarding: unknown }>(await svc.fetch('/system/metrics'))).forwarding).toEqual({ delivered: 300, failed: 0, dropped: 0, backlog: 0, heldInMemory: 0, trickling: false });
        } finally {
            await svc.close();
            await target.close();
        }
    });

    it('with redactBodyPaths the original body is never stored: a forward beyond the memory bound is dropped with its reason', async () => {
        const target = await startHoldingReceiver();
        const svc = await startTestService({
            input: { rateLimitPerMinute: 0, forwardUrl: target.url, replayTimeoutMs: 60_000, redactBodyPaths: ['body.secret'] },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
            overrides: { forwardQueue: 10, forwardInFlood: NO_FLOOD_RULE },
        });
        try {
            const sent = [];
            for (let i = 0; i < 100; i++) sent.push(await capture(svc, svc.webhookId, { method: 'POST', body: `{"secret":"s-${i}","n":${i}}`, headers: { 'Content-Type': 'application/json' } }));
            await target.waitFor(16);
            target.release();
            const outcomes = [];
            for (const s of sent) outcomes.push(await outcomeOf(svc, s.id));
            // 64 were handed out and 10 kept in memory: those go out with the sender's bytes.
            expect(outcomes.slice(0, 74).every((o) => o.status === 'delivered')).toBe(true);
            expect(target.requests.map((r) => r.body.toString()).sort()).toEqual(sent.slice(0, 74).map((_, i) => `{"secret":"s-${i}","n":${i}}`).sort());
            expect(outcomes.slice(74)).toEqual(sent.slice(74).map(() => expect.objectContaining({ status: 'dropped', attempts: 0, error: expect.stringContaining('kept only in memory (redactBodyPaths') })));
            expect((await json<{ body: unknown }>(await svc.fetch(`/logs/${sent[99]!.id}`))).body).toEqual({ secret: '[REDACTED]', n: 99 });
        } finally {
            await svc.close();
            await target.close();
        }
    });
});

async function freePort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    await new Promise((r) => server.close(r));
    return port;
}
