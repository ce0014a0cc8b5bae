import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { send, type Payload } from './sim/payloads.js';
import { startRun, type PlatformRun } from './sim/run.js';
import type { StalledRequest } from './sim/server.js';
import { listEvents, payloadBytes, simulatedPlatform, startContainer, waitForEvents } from './sim/service.js';
import { ApiDeadlineError, Deadlines, MIN_RATE_BYTES_PER_S } from '../../src/storage/apify/deadline.js';

const AUTH_KEY = 'deadline-key';
/** The base of every API call's deadline in these runs (production: 30 s). */
const DEADLINE_MS = 2500;
/** Room for a loaded 2-core machine: the abort must come well before the client's own 30 s timeout. */
const SLACK_MS = 4000;
const PUSH = /^\/v2\/datasets\/[^/]+\/items$/;

const small = (i: number): Payload => ({ name: `event ${i}`, contentType: 'application/json', bytes: Buffer.from(JSON.stringify({ i })) });

/** Issue 22 item 3: every outbound call to the Apify API has a total deadline, whatever the API does. */
describe('every Apify API call has a total deadline', () => {
    const platform = simulatedPlatform();
    const { running } = platform;

    const start = async (actorId: string): Promise<{ svc: ServiceProcess; hook: string; run: PlatformRun }> => {
        const run = startRun(platform.sim, { actorId, input: { urlCount: 1, authKey: AUTH_KEY, rateLimitPerMinute: 0 } });
        run.env.APIFY_CALL_DEADLINE_MS = String(DEADLINE_MS);
        const svc = await startContainer(platform.sim, run);
        running.push(svc);
        const info = (await (await svc.fetch('/info', { headers: { authorization: `Bearer ${AUTH_KEY}` } })).json()) as { system: { activeWebhooks: { id: string }[] } };
        const hook = info.system.activeWebhooks[0]?.id;
        assert.ok(hook);
        return { svc, hook, run };
    };

    /** Sends `n` small captures; each must be answered 200 at once, export or no export. */
    const capture = async (svc: ServiceProcess, hook: string, n: number, from: number): Promise<string[]> => {
        const ids: string[] = [];
        for (let i = from; i < from + n; i++) {
            const began = Date.now();
            const answer = await send(svc, hook, small(i), AUTH_KEY);
            expect(answer.status).toBe(200);
            expect(Date.now() - began).toBeLessThan(DEADLINE_MS);
            ids.push(answer.requestId);
        }
        return ids;
    };

    /** Stalled pushes closed by the service, and a later push: it gave up and tried again. */
    const gaveUpAndRetried = (kind: StalledRequest['kind']): StalledRequest[] | undefined => {
        const pushes = platform.sim.stalled.filter((s) => s.kind === kind && PUSH.test(s.path));
        const closed = pushes.filter((s) => s.closedAt !== undefined);
        const first = closed[0];
        return first && pushes.some((s) => s.arrivedAt > first.closedAt!) ? closed : undefined;
    };

    const everyInBoth = (run: PlatformRun, actorId: string, requestIds: string[]): boolean => {
        const history = platform.sim.state.datasetByName(`webhook-debugger-actor-${actorId}`).items;
        const own = platform.sim.state.datasets.get(run.run.defaultDatasetId)!.items;
        return requestIds.every((r) => history.some((i) => i.requestId === r) && own.some((i) => i.requestId === r));
    };

    for (const kind of ['hang', 'drip'] as const) {
        const what = kind === 'hang' ? 'accepts a push and never answers' : 'answers a push one byte per second';
        it(`a dataset API that ${what}: the export aborts it at the deadline and retries, capture and /logs keep answering, and every acknowledged event reaches both datasets once it clears`, async () => {
            const actorId = `simDeadline${kind}01`;
            const { svc, hook, run } = await start(actorId);
            const before = await capture(svc, hook, 3, 0);
            await until('the first events exported', async () => (everyInBoth(run, actorId, before) ? true : undefined), { timeoutMs: 30_000 });

            const rule = platform.sim.faults.inject({ method: 'POST', path: PUSH, statuses: [kind], every: 1, times: Infinity });
            const during = await capture(svc, hook, 10, 3);
            const closed = await until(`a ${kind}ing push aborted and tried again`, async () => gaveUpAndRetried(kind), { timeoutMs: 60_000 });
            // Meanwhile the service answers captures and queries as usual.
            const more = await capture(svc, hook, 5, 13);
            const listed = new Set((await listEvents(svc, AUTH_KEY)).map((e) => e.requestId));
            for (const r of [...before, ...during, ...more]) expect(listed.has(r)).toBe(true);

            for (const s of closed) {
                const heldMs = s.closedAt! - s.arrivedAt;
                diagnostic(`${kind}: push held ${heldMs} ms (deadline ${DEADLINE_MS} ms), ${s.dripped} bytes dripped`);
                expect(heldMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1000);
                expect(heldMs).toBeLessThan(DEADLINE_MS + SLACK_MS);
                // A drip kept the socket busy: only our deadline, not an inactivity timer, could end it.
                if (kind === 'drip') expect(s.dripped).toBeGreaterThanOrEqual(2);
            }
            const metrics = (await (await svc.fetch('/system/metrics', { headers: { authorization: `Bearer ${AUTH_KEY}` } })).json()) as { sync: { lastDatasetFlushError: string | null } };
            expect(metrics.sync.lastDatasetFlushError ?? '').toMatch(/did not complete within/);

            platform.sim.faults.clear();
            const all = [...before, ...during, ...more];
            await until('every acknowledged event in both datasets', async () => (everyInBoth(run, actorId, all) ? true : undefined), { timeoutMs: 90_000 });
            diagnostic(`${kind}: ${rule.seen} pushes held, then all ${all.length} events exported`);
            // Nothing left open: every held request was closed by the service.
            await until('every held request closed', async () => (platform.sim.stalled.every((s) => s.closedAt !== undefined) ? true : undefined), { timeoutMs: 15_000 });
        });
    }

    it('a payload upload that hangs is aborted at its deadline and sent again (capture answered 200); in a fresh container a payload read that drips is cut with a 503 and the next read is byte-exact', async () => {
        const actorId = 'simDeadlineUpload01';
        const { svc, hook, run } = await start(actorId);
        const rule = platform.sim.faults.inject({ method: 'PUT', path: /\/records\/payload-/, statuses: ['hang'], every: 1, times: 2 });
        const large: Payload = { name: 'large binary', contentType: 'application/octet-stream', bytes: randomBytes(6 * 1024 * 1024) };
        const began = Date.now();
        const answer = await send(svc, hook, large, AUTH_KEY);
        const tookMs = Date.now() - began;
        diagnostic(`upload: answered ${answer.status} after ${tookMs} ms, ${rule.failed} attempts held`);
        expect(answer.status).toBe(200);
        expect(rule.failed).toBe(2);
        const held = platform.sim.stalled.filter((s) => /\/records\/payload-/.test(s.path));
        expect(held).toHaveLength(2);
        // 6 MB earns 6 s at the minimum rate of 1 MB/s on top of the base.
        for (const s of held) expect(s.closedAt! - s.arrivedAt).toBeLessThan(DEADLINE_MS + 6000 + SLACK_MS);
        const [event] = (await listEvents(svc, AUTH_KEY)).filter((e) => e.requestId === answer.requestId);
        assert.ok(event);
        const got = await payloadBytes(svc, event.id, AUTH_KEY);
        expect(got.status).toBe(200);
        assert.ok(got.bytes.equals(large.bytes), `payload back byte-exact (${got.bytes.length} bytes)`);

        // A fresh container has no spool copy: it reads the record from the API, which drips it.
        const fresh = await startContainer(platform.sim, run);
        running.push(fresh);
        const logId = (await waitForEvents(fresh, [answer.requestId], AUTH_KEY)).get(answer.requestId)!;
        platform.sim.faults.inject({ method: 'GET', path: /\/records\/payload-/, statuses: ['drip'], every: 1, times: 1 });
        const cut = await fresh.fetch(`/logs/${logId}/payload`, { headers: { authorization: `Bearer ${AUTH_KEY}` } });
        const body = (await cut.json()) as { message?: string };
        expect(cut.status).toBe(503);
        expect(cut.headers.get('retry-after')).toBeTruthy();
        expect(body.message).toMatch(/payload read/);
        const dripped = platform.sim.stalled.filter((s) => s.kind === 'drip' && /\/records\/payload-/.test(s.path));
        expect(dripped).toHaveLength(1);
        await until('the dripping read closed', async () => (dripped[0]!.closedAt !== undefined ? true : undefined));
        expect(dripped[0]!.closedAt! - dripped[0]!.arrivedAt).toBeLessThan(DEADLINE_MS + SLACK_MS);
        expect(dripped[0]!.dripped).toBeGreaterThanOrEqual(2);
        const again = await payloadBytes(fresh, logId, AUTH_KEY);
        expect(again.status).toBe(200);
        assert.ok(again.bytes.equals(large.bytes), `payload read again byte-exact (${again.bytes.length} bytes)`);
    });
});

/** The rule itself: a base allowance plus one second per MIN_RATE bytes moved. */
describe('an API call deadline', () => {
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    it('ends a call that moves nothing at the base, with ApiDeadlineError', async () => {
        const began = Date.now();
        await expect(new Deadlines(300).run('idle call', 0, () => sleep(5000))).rejects.toBeInstanceOf(ApiDeadlineError);
        expect(Date.now() - began).toBeLessThan(2000);
    });

    it('gives a call one second more per MIN_RATE bytes it declares or reports as it goes', async () => {
        // Declared up front (an upload's size): 300 ms + 1 s.
        await expect(new Deadlines(300).run('declared', MIN_RATE_BYTES_PER_S, () => sleep(900).then(() => 'done'))).resolves.toBe('done');
        // Reported as it goes (a download): each 100 ms moves a quarter of the rate, earning 250 ms.
        const reported = new Deadlines(300).run('reported', 0, async (deadline) => {
            for (let i = 0; i < 8; i++) {
                await sleep(100);
                deadline.moved(MIN_RATE_BYTES_PER_S / 4);
            }
            return 'done';
        });
        await expect(reported).resolves.toBe('done');
        // A drip earns nothing worth having.
        const drip = new Deadlines(300).run('drip', 0, async (deadline) => {
            for (let i = 0; i < 20; i++) {
                await sleep(100);
                deadline.moved(1);
            }
        });
        await expect(drip).rejects.toBeInstanceOf(ApiDeadlineError);
    });
});
