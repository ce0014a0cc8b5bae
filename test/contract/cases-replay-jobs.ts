import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { BEFORE_ALL, type ReplayJobSpec, type ReplayJobStore } from '../../src/storage/replay-job-store.js';
import { until } from '../helpers/until.js';
import { T0 } from './factory.js';

/** What the job cases need of a backend: its job store, another instance's on the same data, and the same data opened again. */
export interface JobContractContext {
    readonly shared: boolean;
    jobs(): ReplayJobStore;
    /** Another instance (or run) on the same data. */
    peer(): Promise<ReplayJobStore>;
    /** The data opened again after this store stopped (closed, or gone). */
    reopen(): Promise<ReplayJobStore>;
}

const SPEC: ReplayJobSpec = {
    url: 'http://127.0.0.1:9/in', filters: 'webhookId=wh_a', order: 'oldest', ratePerSecond: 10, concurrency: 1,
    stopAfterFailures: null, edits: { headers: { 'x-a': '1' } }, resign: false, retryOf: null,
};

/** Builds and opens job `id` over events `e-<k>` at positions `positions`. */
async function makeJob(s: ReplayJobStore, id: string, positions: number[], createdAt = T0): Promise<void> {
    await s.create({ id, spec: SPEC, createdAt });
    await s.addItems(id, positions.map((p) => ({ position: p, eventId: `e${p}` })));
    await s.open(id, positions.length);
}

/** ReplayJobStore: bulk replay jobs, their sets, claims and progress. */
export function replayJobCases(ctx: JobContractContext): void {
    describe('ReplayJobStore', () => {
        it('a job is invisible while built, queued once opened, and listed newest first with its spec whole', async () => {
            const s = ctx.jobs();
            await s.create({ id: 'j1', spec: SPEC, createdAt: T0 });
            await s.addItems('j1', [{ position: -1, eventId: 'a' }, { position: -2, eventId: 'b' }]);
            assert.equal(await s.get('j1'), undefined, 'hidden while built');
            assert.deepEqual(await s.list(10), []);
            await s.open('j1', 2);
            await makeJob(s, 'j2', [1], T0 + 1000);
            const job = await s.get('j1');
            assert.deepEqual(job, {
                id: 'j1', spec: SPEC, state: 'queued', total: 2, succeeded: 0, failed: 0, skipped: 0, createdAt: T0,
                startedAt: null, finishedAt: null, lastError: null, cancelRequested: false,
            });
            assert.deepEqual((await s.list(10)).map((j) => j.id), ['j2', 'j1']);
            assert.deepEqual((await s.list(1)).map((j) => j.id), ['j2']);
            assert.equal(await s.get('nope'), undefined);
        });

        it('pending lists items without an outcome in position order (negative positions too), after a position, up to a limit', async () => {
            const s = ctx.jobs();
            await makeJob(s, 'p', [-3, -1, -2, 5, 4]);
            assert.deepEqual((await s.pending('p', BEFORE_ALL, 10)).map((i) => i.position), [-3, -2, -1, 4, 5]);
            assert.deepEqual(await s.pending('p', -2, 2), [{ position: -1, eventId: 'e-1' }, { position: 4, eventId: 'e4' }]);
            assert.deepEqual(await s.pending('p', 5, 10), []);
        });

        it('claim takes the oldest free job, marks it running once; record counts each outcome once; failedItems lists the failed', async () => {
            const s = ctx.jobs();
            await makeJob(s, 'old', [1, 2, 3, 4], T0);
            await makeJob(s, 'new', [1], T0 + 5000);
            const claimed = await s.claim();
            assert.equal(claimed?.id, 'old');
            assert.equal(claimed.state, 'running');
            assert.ok(claimed.startedAt !== null);
            assert.equal(await s.renew('old'), true);
            assert.equal((await s.claim())?.id, 'new', 'the next free one');
            assert.equal(await s.claim(), undefined, 'none left');
            await s.pending('old', BEFORE_ALL, 10);
            await s.record('old', { outcomes: [{ position: 1, outcome: 'succeeded' }, { position: 2, outcome: 'failed' }], lastError: 'HTTP 500 for e2' });
            // A send repeated (after a takeover) records the same item again: it keeps its first outcome and counts once.
            await s.record('old', { outcomes: [{ position: 2, outcome: 'succeeded' }, { position: 3, outcome: 'skipped' }] });
            const job = await s.get('old');
            assert.deepEqual([job?.succeeded, job?.failed, job?.skipped, job?.lastError], [1, 1, 1, 'HTTP 500 for e2']);
            assert.deepEqual((await s.pending('old', BEFORE_ALL, 10)).map((i) => i.position), [4]);
            assert.deepEqual(await s.failedItems('old', BEFORE_ALL, 10), [{ position: 2, eventId: 'e2' }]);
            assert.deepEqual(await s.failedItems('old', 2, 10), []);
        });

        it('finish ends a job for good: its state, finishedAt, lastError; nobody claims it again', async () => {
            const s = ctx.jobs();
            await makeJob(s, 'f', [1]);
            await s.claim();
            await s.finish('f', 'failed', 'stopped after 1 failed sends');
            const job = await s.get('f');
            assert.equal(job?.state, 'failed');
            assert.ok(job.finishedAt !== null);
            assert.equal(job.lastError, 'stopped after 1 failed sends');
            assert.equal(await s.claim(), undefined);
            await s.finish('f', 'done');
            assert.equal((await s.get('f'))?.state, 'failed', 'a finished job stays as it ended');
        });

        it('requestCancel cancels a queued job at once, flags a running one, leaves a finished one, and answers undefined for none', async () => {
            const s = ctx.jobs();
            await makeJob(s, 'q', [1], T0 + 1000);
            await makeJob(s, 'r', [1], T0);
            assert.equal((await s.claim())?.id, 'r');
            const queued = await s.requestCancel('q');
            assert.equal(queued?.state, 'cancelled');
            assert.ok(queued.finishedAt !== null);
            const running = await s.requestCancel('r');
            assert.deepEqual([running?.state, running?.cancelRequested], ['running', true]);
            assert.equal((await s.get('r'))?.cancelRequested, true);
            await s.finish('r', 'cancelled');
            assert.equal((await s.requestCancel('r'))?.state, 'cancelled');
            assert.equal(await s.requestCancel('nope'), undefined);
            assert.equal(await s.claim(), undefined, 'a cancelled queued job is never claimed');
        });

        it('discard deletes a job and its items', async () => {
            const s = ctx.jobs();
            await s.create({ id: 'd', spec: SPEC, createdAt: T0 });
            await s.addItems('d', [{ position: 1, eventId: 'x' }]);
            await s.discard('d');
            await s.open('d', 1);
            assert.equal(await s.get('d'), undefined);
            assert.deepEqual(await s.pending('d', BEFORE_ALL, 10), []);
        });

        it('a job and its progress outlive the store; the next one claims the job its previous owner left running', async () => {
            const s = ctx.jobs();
            await makeJob(s, 'k', [1, 2]);
            await s.claim();
            await s.pending('k', BEFORE_ALL, 10);
            await s.record('k', { outcomes: [{ position: 1, outcome: 'succeeded' }] });
            const again = await ctx.reopen();
            const job = await until('the job to be claimable again', () => again.claim());
            assert.deepEqual([job.id, job.state, job.succeeded], ['k', 'running', 1]);
            assert.deepEqual((await again.pending('k', BEFORE_ALL, 10)).map((i) => i.position), [2]);
        });

        // One process opens the embedded file: there is no other instance to ask.
        it.skipIf(!ctx.shared)('with several instances: one claims a job, the others see it and its progress but cannot claim it until it is released', async () => {
            const a = ctx.jobs();
            const b = await ctx.peer();
            await makeJob(a, 's', [1, 2]);
            assert.equal((await b.claim())?.id, 's');
            assert.equal(await a.claim(), undefined, 'owned by a live instance');
            await b.pending('s', BEFORE_ALL, 10);
            await b.record('s', { outcomes: [{ position: 1, outcome: 'succeeded' }] });
            assert.deepEqual([(await a.get('s'))?.succeeded, (await a.get('s'))?.state], [1, 'running']);
            assert.equal(await a.renew('s'), false);
            assert.equal((await a.requestCancel('s'))?.cancelRequested, true);
            // The owner learns of it when it renews its claim at the latest.
            assert.equal(await b.renew('s'), true);
            assert.equal((await b.get('s'))?.cancelRequested, true, 'the owner sees a cancel made elsewhere');
            await b.release('s');
            assert.equal((await until('a to claim the released job', () => a.claim()))?.id, 's');
        });
    });
}
