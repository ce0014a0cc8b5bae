import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { CREATING, JOB_COLUMNS, jobFromRow, type JobRow } from '../replay-job-rows.js';
import type { ReplayJobItem, ReplayJobProgress, ReplayJobRecord, ReplayJobSpec, ReplayJobStore } from '../replay-job-store.js';
import type { WorkerWriter } from './writer.js';
import type { JobWrite } from './writer-jobs.js';

/**
 * Jobs in the embedded file: reads on the store's read-only connection, every change through the
 * single writer (group commit, as captures). One process opens the file, so a job owned by anyone
 * else belongs to a process that is gone: this one claims it on its first look.
 */
export class SqliteReplayJobStore implements ReplayJobStore {
    /** This opening of the file: what `owner` holds for the jobs it runs. */
    private readonly owner = `sqlite-${randomBytes(6).toString('hex')}`;
    private readonly s;

    constructor(reader: Database.Database, private readonly writer: WorkerWriter) {
        this.s = {
            get: reader.prepare(`SELECT ${JOB_COLUMNS} FROM replay_jobs WHERE id = ? AND state <> '${CREATING}'`),
            list: reader.prepare(`SELECT ${JOB_COLUMNS} FROM replay_jobs WHERE state <> '${CREATING}' ORDER BY created_at DESC, id DESC LIMIT ?`),
            claimable: reader.prepare(`SELECT 1 FROM replay_jobs WHERE state IN ('queued', 'running') AND (owner IS NULL OR owner <> ?) LIMIT 1`).pluck(),
            owner: reader.prepare('SELECT owner FROM replay_jobs WHERE id = ?').pluck(),
            pending: reader.prepare('SELECT position, event_id AS eventId FROM replay_job_items WHERE job_id = ? AND position > ? AND outcome IS NULL ORDER BY position LIMIT ?'),
            failed: reader.prepare(`SELECT position, event_id AS eventId FROM replay_job_items WHERE job_id = ? AND position > ? AND outcome = 'failed' ORDER BY position LIMIT ?`),
        };
    }

    private async write(write: JobWrite): Promise<string | null | undefined> {
        return (await this.writer.request({ op: 'jobs', write })).claimed;
    }

    async create(job: { id: string; spec: ReplayJobSpec; createdAt: number }): Promise<void> {
        await this.write({ kind: 'create', id: job.id, spec: JSON.stringify(job.spec), createdAt: job.createdAt });
    }

    async addItems(jobId: string, items: readonly ReplayJobItem[]): Promise<void> {
        await this.write({ kind: 'items', jobId, items: items.map((i) => [i.position, i.eventId]) });
    }

    async open(jobId: string, total: number): Promise<void> {
        await this.write({ kind: 'open', jobId, total });
    }

    async discard(jobId: string): Promise<void> {
        await this.write({ kind: 'discard', jobId });
    }

    async get(id: string): Promise<ReplayJobRecord | undefined> {
        const row = this.s.get.get(id) as JobRow | undefined;
        return row && jobFromRow(row);
    }

    async list(limit: number): Promise<ReplayJobRecord[]> {
        return (this.s.list.all(limit) as JobRow[]).map(jobFromRow);
    }

    async claim(): Promise<ReplayJobRecord | undefined> {
        // A look on the reader first: an idle service never writes to find nothing.
        if (!this.s.claimable.get(this.owner)) return undefined;
        const id = await this.write({ kind: 'claim', owner: this.owner, now: Date.now() });
        return id ? this.get(id) : undefined;
    }

    async renew(jobId: string): Promise<boolean> {
        return this.s.owner.get(jobId) === this.owner;
    }

    async release(jobId: string): Promise<void> {
        await this.write({ kind: 'release', jobId, owner: this.owner });
    }

    async pending(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return this.s.pending.all(jobId, afterPosition, limit) as ReplayJobItem[];
    }

    async failedItems(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return this.s.failed.all(jobId, afterPosition, limit) as ReplayJobItem[];
    }

    async record(jobId: string, progress: ReplayJobProgress): Promise<void> {
        const write: JobWrite = { kind: 'record', jobId, outcomes: progress.outcomes.map((o) => [o.position, o.outcome]) };
        if (progress.lastError !== undefined) write.lastError = progress.lastError;
        await this.write(write);
    }

    async finish(jobId: string, state: 'done' | 'cancelled' | 'failed', lastError?: string): Promise<void> {
        await this.write({ kind: 'finish', jobId, state, now: Date.now(), ...(lastError !== undefined ? { lastError } : {}) });
    }

    async requestCancel(jobId: string): Promise<ReplayJobRecord | undefined> {
        await this.write({ kind: 'cancel', jobId, now: Date.now() });
        return this.get(jobId);
    }
}
