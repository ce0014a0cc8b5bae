import { describe, expect, it } from 'vitest';
import { webhookIds } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../replay/receiver.js';
import { captureAll, createJob, getJob, waitForJob } from '../replay-jobs/helpers.js';
import { startRun } from './sim/run.js';
import { simulatedPlatform, startContainer } from './sim/service.js';

// The real service (`dist/main.js`; run `npm run build` first) on the simulated platform without a
// database: a bulk replay job lives in the named key-value store, as webhooks do, so the run's next
// container goes on with it after a migration (issue 37, "4. Durable and shared").
const ACTOR = 'simReplayJobActor';
const CAPTURES = 60;

describe('a replay job on the platform without a database (simulated API, real SDK, real processes)', () => {
    const platform = simulatedPlatform();

    it('survives a migration: the run\'s next container goes on with the job, and no capture is sent twice', async () => {
        const target = await startReceiver((_req, res) => void setTimeout(() => res.end('ok'), 20));
        try {
            const run = startRun(platform.sim, { actorId: ACTOR, input: { urlCount: 1, rateLimitPerMinute: 0 } });
            run.env.SSRF_ALLOWLIST = '127.0.0.1/32';
            const first = await startContainer(platform.sim, run);
            platform.running.push(first);
            const [webhookId] = await webhookIds(first);
            await captureAll(first, webhookId!, Array.from({ length: CAPTURES }, (_, i) => `{"n":${i}}`), 10);
            const job = await createJob(first, { filters: `webhookId=${webhookId}`, url: target.url, ratePerSecond: 10, concurrency: 2 });
            await until('a sixth of the set sent', async () => ((await getJob(first, job.id)).sent >= CAPTURES / 6 ? true : undefined), { timeoutMs: 30_000 });

            platform.sim.emit(run.run.id, 'migrating', { timeRemainingSecs: 5 });
            expect(await first.exited).toEqual({ code: 0, signal: null });
            const before = target.requests.length;
            expect(before, 'the job was cut short by the migration').toBeLessThan(CAPTURES);

            // The same run in a new container, on a fresh disk: the job comes from the key-value store.
            const next = await startContainer(platform.sim, run);
            platform.running.push(next);
            expect(next.dir).not.toBe(first.dir);
            const done = await waitForJob(next, job.id, undefined, 90_000);
            expect(done).toMatchObject({ state: 'done', total: CAPTURES, succeeded: CAPTURES, failed: 0, skipped: 0 });
            const sent = target.requests.map((r) => (JSON.parse(r.body.toString()) as { n: number }).n);
            expect(new Set(sent).size, `${before} sent before the migration`).toBe(CAPTURES);
            // A migration is a graceful stop: the sends in flight ended and were recorded, so none goes twice.
            expect(sent).toHaveLength(CAPTURES);
        } finally {
            await target.close();
        }
    }, 150_000);
});
