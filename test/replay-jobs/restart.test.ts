import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { captureAll, createJob, getJob, sendsPerCapture, waitForJob } from './helpers.js';

// A job outlives its process (real `node dist/main.js` processes on one storage folder): after a
// SIGKILL every capture is sent at least once and at most the sends in flight twice; after a
// graceful stop nothing is sent twice. Run `npm run build` first.

const CONCURRENCY = 4;
const CAPTURES = 300;
const SSRF = { SSRF_ALLOWLIST: '127.0.0.1/32' };

let svc: ServiceProcess | undefined;
let target: Receiver | undefined;
afterEach(async () => {
    await svc?.stop();
    if (svc) await removeDir(svc.dir);
    await target?.close();
    svc = undefined;
});

/** Starts a service, captures CAPTURES bodies `{"n":i}` and starts a job at 50/s to a receiver answering after 40 ms. */
async function jobUnderWay(): Promise<{ jobId: string; dir: string }> {
    target = await startReceiver((_req, res) => void setTimeout(() => res.end('ok'), 40));
    svc = await startServiceProcess({ env: SSRF });
    const [webhookId] = await webhookIds(svc);
    await captureAll(svc, webhookId!, Array.from({ length: CAPTURES }, (_, i) => `{"n":${i}}`), 10);
    const job = await createJob(svc, { filters: `webhookId=${webhookId}`, url: target.url, ratePerSecond: 50, concurrency: CONCURRENCY });
    await until('a fifth of the set sent', async () => (await getJob(svc!, job.id)).sent >= CAPTURES / 5, { timeoutMs: 30_000 });
    return { jobId: job.id, dir: svc.dir };
}


describe('a replay job across restarts', () => {
    it('SIGKILL mid-job, then a restart: the job goes on, each capture is sent at least once, duplicates at most the concurrency', async () => {
        const { jobId, dir } = await jobUnderWay();
        svc!.signal('SIGKILL');
        await svc!.exited;
        const receivedBefore = target!.requests.length;
        svc = await startServiceProcess({ dir, env: SSRF });
        const job = await waitForJob(svc, jobId, undefined, 60_000);
        expect(job).toMatchObject({ state: 'done', total: CAPTURES, succeeded: CAPTURES, failed: 0, skipped: 0 });
        const counts = sendsPerCapture(target!);
        expect(counts.size).toBe(CAPTURES);
        const duplicates = target!.requests.length - CAPTURES;
        expect(duplicates, `${duplicates} sent twice (${receivedBefore} received before the kill)`).toBeLessThanOrEqual(CONCURRENCY);
        expect(Math.max(...counts.values())).toBeLessThanOrEqual(2);
    }, 120_000);

    it('SIGTERM mid-job: the sends in flight end and are recorded, and the restarted service sends nothing twice', async () => {
        const { jobId, dir } = await jobUnderWay();
        const exit = await svc!.stop();
        expect(exit.code).toBe(0);
        svc = await startServiceProcess({ dir, env: SSRF });
        const job = await waitForJob(svc, jobId, undefined, 60_000);
        expect(job).toMatchObject({ state: 'done', succeeded: CAPTURES });
        expect(target!.requests).toHaveLength(CAPTURES);
        expect(sendsPerCapture(target!).size).toBe(CAPTURES);
    }, 120_000);
});
