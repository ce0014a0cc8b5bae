import { describe, expect, it } from 'vitest';
import { pgTestsCanRun } from '../helpers/pg-server.js';
import { webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { startReceiver } from '../replay/receiver.js';
import { captureAll, createJob, getJob, sendsPerCapture, waitForJob, type JobView } from '../replay-jobs/helpers.js';
import { useInstances } from './fixture.js';

// Bulk replay jobs with two real instances on one PostgreSQL: one instance runs each job, every
// instance answers for it, and a job whose instance dies is taken over.
const available = pgTestsCanRun('the replay jobs on several instances');

const SSRF = { SSRF_ALLOWLIST: '127.0.0.1/32' };


describe.skipIf(!available)('replay jobs on two instances of one PostgreSQL', { timeout: 180_000 }, () => {
    const fx = useInstances('shared');

    async function twoInstances(captures: number): Promise<{ a: ServiceProcess; b: ServiceProcess; webhookId: string }> {
        const url = await fx.pg.createDatabase();
        const a = await fx.startInstance(url, {}, SSRF);
        const b = await fx.startInstance(url, {}, SSRF);
        const [webhookId] = await webhookIds(a);
        await captureAll(a, webhookId!, Array.from({ length: captures }, (_, i) => `{"n":${i}}`), 10);
        return { a, b, webhookId: webhookId! };
    }

    it('a job created on A runs once across A and B, and B reports its progress and streams it', async () => {
        const target = await startReceiver();
        try {
            const { a, b, webhookId } = await twoInstances(200);
            const created = await createJob(a, { filters: `webhookId=${webhookId}`, url: target.url, ratePerSecond: 100, concurrency: 2 });
            const stream = await b.fetch(`/replay-jobs/${created.id}/stream`);
            const midway = await until('B to report the job under way', async () => {
                const job = await getJob(b, created.id);
                return job.sent > 0 && job.sent < 200 && job.state === 'running' ? job : undefined;
            });
            expect(midway.total).toBe(200);
            const text = await stream.text();
            const frames = text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as JobView);
            expect(frames.at(-1)).toMatchObject({ id: created.id, state: 'done', sent: 200 });
            expect(frames.some((f) => f.sent > 0 && f.sent < 200), 'B streamed progress along the way').toBe(true);
            const done = await getJob(b, created.id);
            expect(done).toMatchObject({ state: 'done', sent: 200, succeeded: 200 });
            // Once: both instances look for free jobs every second, and only one ran it.
            await new Promise((r) => setTimeout(r, 1500));
            expect(target.requests).toHaveLength(200);
            expect(sendsPerCapture(target).size).toBe(200);
            expect((await getJob(a, created.id)).sent).toBe(200);
        } finally {
            await target.close();
        }
    });

    it('takes over the job of an instance killed mid-job: each capture sent at least once, duplicates at most the concurrency', async () => {
        const target = await startReceiver((_req, res) => void setTimeout(() => res.end('ok'), 30));
        try {
            const url = await fx.pg.createDatabase();
            const a = await fx.startInstance(url, {}, SSRF);
            const [webhookId] = await webhookIds(a);
            await captureAll(a, webhookId!, Array.from({ length: 300 }, (_, i) => `{"n":${i}}`), 10);
            const created = await createJob(a, { filters: `webhookId=${webhookId}`, url: target.url, ratePerSecond: 20, concurrency: 3 });
            // B starts once A runs the job: A is the one that dies with it.
            await until('A to run the job', async () => ((await getJob(a, created.id)).sent > 0 ? true : undefined));
            const b = await fx.startInstance(url, {}, SSRF);
            await until('the job under way', async () => ((await getJob(b, created.id)).sent >= 40 ? true : undefined));
            const sentBy = target.requests.length;
            a.signal('SIGKILL');
            await a.exited;
            const job = await waitForJob(b, created.id, undefined, 120_000);
            expect(job).toMatchObject({ state: 'done', total: 300, succeeded: 300 });
            expect(sendsPerCapture(target).size).toBe(300);
            expect(target.requests.length - 300, `${sentBy} received before the kill`).toBeLessThanOrEqual(3);
        } finally {
            await target.close();
        }
    });
});
