import type { ReplayJob, ReplayJobDryRun } from '../../api/replay-jobs.js';
import { AppError, NotFoundError, validationError } from '../../errors.js';
import { maskUrl, type CredentialRule } from '../../lib/credentials.js';
import type { ReplayJobRecord, ReplayJobSpec } from '../../storage/replay-job-store.js';
import type { LogSummary } from '../../storage/types.js';
import type { CheckedTarget } from '../ssrf-guard.js';
import { countAndSample, writeFailedSet, writeMatchingSet, type BuildDeps } from './build.js';
import { parseJobFilters, parseJobRequest, parseRetryRequest } from './request.js';
import type { ReplayJobScheduler } from './scheduler.js';

/** What the job routes need beside the store and the query. */
export interface ReplayJobsDeps extends BuildDeps {
    scheduler: ReplayJobScheduler;
    /** The SSRF guard of /replay. */
    check(url: string): Promise<CheckedTarget>;
    /** Whether `resign: true` can be honoured (a signature secret is configured). */
    canResign: boolean;
    newId(): string;
    now(): number;
    /** Masks this service's own key in a target URL shown back. */
    credentials: CredentialRule;
    baseUrl(): string;
}

/** The most jobs GET /replay-jobs lists. */
export const LIST_LIMIT = 100;
const FINAL = new Set(['done', 'cancelled', 'failed']);

/** What a POST /replay-jobs made: a dry run's answer, or a job. */
export type Created = { dryRun: ReplayJobDryRun & { sample: (LogSummary & { detailUrl: string })[] } } | { job: ReplayJob };

/** Bulk replay jobs as the routes see them: made, listed, read, cancelled and retried. */
export class ReplayJobs {
    constructor(private readonly deps: ReplayJobsDeps) {}

    /** POST /replay-jobs: validates, checks the target (400, no job), then answers a dry run or makes the job. */
    async create(body: unknown, text: string): Promise<Created> {
        const request = parseJobRequest(body, text, this.deps.canResign);
        await this.checkTarget(request.spec.url);
        if (request.dryRun) {
            const { matched, sample } = await countAndSample(this.deps.events, request.filters, request.spec.order);
            const base = this.deps.baseUrl();
            return {
                dryRun: {
                    matched,
                    sample: sample.map((item) => ({ ...item, detailUrl: `${base}/logs/${encodeURIComponent(item.id)}` })),
                    url: maskUrl(request.spec.url, this.deps.credentials),
                    estimatedSeconds: Math.ceil(matched / request.spec.ratePerSecond),
                },
            };
        }
        return { job: await this.make(request.spec, (id) => writeMatchingSet(this.deps, id, request.filters, request.spec.order)) };
    }

    /** POST /replay-jobs/:id/retry: a new job over the failed items of a job that ended. */
    async retry(id: string, body: unknown, text: string): Promise<ReplayJob> {
        const change = parseRetryRequest(body, text);
        const source = await this.record(id);
        if (!FINAL.has(source.state)) throw new AppError(409, `Replay job '${id}' is ${source.state}: retry it once it has ended (or cancel it first)`);
        if (source.failed === 0) throw new AppError(409, `Replay job '${id}' has no failed sends to retry`);
        const spec: ReplayJobSpec = { ...source.spec, ...change, url: (change.url ?? source.spec.url).trim(), retryOf: id };
        parseJobFilters(spec.filters);
        await this.checkTarget(spec.url);
        return this.make(spec, (newId) => writeFailedSet(this.deps, newId, id));
    }

    /** GET /replay-jobs/:id. */
    async get(id: string): Promise<ReplayJob> {
        return this.view(await this.record(id));
    }

    /** The job as kept; 404 when unknown. */
    async record(id: string): Promise<ReplayJobRecord> {
        const job = await this.deps.store.get(id);
        if (!job) throw new NotFoundError(`Replay job '${id}' not found`);
        return job;
    }

    /** GET /replay-jobs: newest first. */
    async list(): Promise<ReplayJob[]> {
        return (await this.deps.store.list(LIST_LIMIT)).map((job) => this.view(job));
    }

    /** DELETE /replay-jobs/:id: stops the job (404 when unknown). */
    async cancel(id: string): Promise<ReplayJob> {
        const job = await this.deps.scheduler.cancel(id);
        if (!job) throw new NotFoundError(`Replay job '${id}' not found`);
        return this.view(job);
    }

    /** A job as the API shows it. */
    view(job: ReplayJobRecord): ReplayJob {
        const statusUrl = `${this.deps.baseUrl()}/replay-jobs/${encodeURIComponent(job.id)}`;
        const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
        const { spec } = job;
        return {
            id: job.id, state: job.state, total: job.total, sent: job.succeeded + job.failed, succeeded: job.succeeded, failed: job.failed, skipped: job.skipped,
            url: maskUrl(spec.url, this.deps.credentials), filters: spec.filters, order: spec.order, ratePerSecond: spec.ratePerSecond, concurrency: spec.concurrency,
            stopAfterFailures: spec.stopAfterFailures, resign: spec.resign, retryOf: spec.retryOf, cancelRequested: job.cancelRequested,
            createdAt: new Date(job.createdAt).toISOString(), startedAt: iso(job.startedAt), finishedAt: iso(job.finishedAt), lastError: job.lastError,
            statusUrl, streamUrl: `${statusUrl}/stream`,
        };
    }

    /** The target passes the guard of /replay, or the request is refused before any job exists. */
    private async checkTarget(url: string): Promise<void> {
        try {
            await this.deps.check(url);
        } catch (error) {
            if (error instanceof AppError && error.status === 400) throw validationError(error.message, [{ path: 'url', message: error.message }]);
            throw error;
        }
    }

    /** Makes a job: its set written in batches while it is hidden, then opened and handed to the scheduler. */
    private async make(spec: ReplayJobSpec, writeSet: (id: string) => Promise<number>): Promise<ReplayJob> {
        const { store } = this.deps;
        const id = this.deps.newId();
        await store.create({ id, spec, createdAt: this.deps.now() });
        let total: number;
        try {
            total = await writeSet(id);
            await store.open(id, total);
        } catch (error) {
            await store.discard(id).catch(() => undefined);
            throw error;
        }
        this.deps.scheduler.kick();
        return this.view(await this.record(id));
    }
}
