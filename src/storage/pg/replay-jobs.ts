import type pg from 'pg';
import { CREATING, JOB_COLUMNS, jobFromRow, tally, type JobRow } from '../replay-job-rows.js';
import type { ReplayJobItem, ReplayJobProgress, ReplayJobRecord, ReplayJobSpec, ReplayJobStore } from '../replay-job-store.js';
import type { ClaimRule } from './instances.js';
import { rows, transaction } from './pool.js';

/** The tables of bulk replay jobs (replay-job-rows.ts): `owner` is the instance that runs the job. */
export const REPLAY_JOBS_DDL = [
    `CREATE TABLE IF NOT EXISTS replay_jobs (
        id text PRIMARY KEY,
        spec text NOT NULL,
        state text NOT NULL,
        total bigint NOT NULL DEFAULT 0,
        succeeded bigint NOT NULL DEFAULT 0,
        failed bigint NOT NULL DEFAULT 0,
        skipped bigint NOT NULL DEFAULT 0,
        created_at bigint NOT NULL,
        started_at bigint,
        finished_at bigint,
        last_error text,
        cancel_requested boolean NOT NULL DEFAULT false,
        owner text
    )`,
    'CREATE INDEX IF NOT EXISTS replay_jobs_created ON replay_jobs (created_at, id)',
    'CREATE TABLE IF NOT EXISTS replay_job_items (job_id text NOT NULL, position bigint NOT NULL, event_id text NOT NULL, outcome text, PRIMARY KEY (job_id, position))',
];

// A job is free when nobody owns it, or (once this instance is settled, instances.ts) when its owner
// stopped beating or is forgotten altogether. SKIP LOCKED: two instances claiming at once never take
// the same job.
const CLAIM = `UPDATE replay_jobs SET owner = $1, state = 'running', started_at = coalesce(started_at, $4)
    WHERE id = (SELECT id FROM replay_jobs j WHERE state IN ('queued', 'running') AND (owner IS NULL OR ($2::boolean AND owner <> $1
        AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = j.owner AND i.seen_at >= now() - make_interval(secs => $3::float8))))
        ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING ${JOB_COLUMNS}`;

const CANCEL = `UPDATE replay_jobs SET
    state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
    finished_at = CASE WHEN state = 'queued' THEN $2 ELSE finished_at END,
    cancel_requested = cancel_requested OR state IN ('queued', 'running')
    WHERE id = $1 RETURNING ${JOB_COLUMNS}`;

/** Jobs in the shared database: one instance runs each (claimed), every instance reads them. */
export class PgReplayJobStore implements ReplayJobStore {
    constructor(
        private readonly pool: pg.Pool,
        private readonly instanceId: string,
        /** When this instance may take over the jobs of instances that stopped beating. */
        private readonly claims: ClaimRule,
    ) {}

    async create(job: { id: string; spec: ReplayJobSpec; createdAt: number }): Promise<void> {
        await rows(this.pool, 'INSERT INTO replay_jobs (id, spec, state, created_at) VALUES ($1, $2, $3, $4)', [job.id, JSON.stringify(job.spec), CREATING, job.createdAt]);
    }

    async addItems(jobId: string, items: readonly ReplayJobItem[]): Promise<void> {
        await rows(this.pool, 'INSERT INTO replay_job_items (job_id, position, event_id) SELECT $1, * FROM unnest($2::bigint[], $3::text[]) ON CONFLICT DO NOTHING', [
            jobId, items.map((i) => i.position), items.map((i) => i.eventId),
        ]);
    }

    async open(jobId: string, total: number): Promise<void> {
        await rows(this.pool, `UPDATE replay_jobs SET state = 'queued', total = $2 WHERE id = $1 AND state = $3`, [jobId, total, CREATING]);
    }

    async discard(jobId: string): Promise<void> {
        await transaction(this.pool, async (client) => {
            await client.query('DELETE FROM replay_job_items WHERE job_id = $1', [jobId]);
            await client.query('DELETE FROM replay_jobs WHERE id = $1', [jobId]);
        });
    }

    async get(id: string): Promise<ReplayJobRecord | undefined> {
        const [row] = await rows<JobRow>(this.pool, `SELECT ${JOB_COLUMNS} FROM replay_jobs WHERE id = $1 AND state <> $2`, [id, CREATING]);
        return row && jobFromRow(row);
    }

    async list(limit: number): Promise<ReplayJobRecord[]> {
        const list = await rows<JobRow>(this.pool, `SELECT ${JOB_COLUMNS} FROM replay_jobs WHERE state <> $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [CREATING, limit]);
        return list.map(jobFromRow);
    }

    async claim(): Promise<ReplayJobRecord | undefined> {
        const [row] = await rows<JobRow>(this.pool, CLAIM, [this.instanceId, this.claims.settled(), this.claims.deadAfterS, Date.now()]);
        return row && jobFromRow(row);
    }

    async renew(jobId: string): Promise<boolean> {
        // The instance's heartbeat is the lease: while it beats, nobody takes the job.
        const [row] = await rows<{ owner: string | null }>(this.pool, 'SELECT owner FROM replay_jobs WHERE id = $1', [jobId]);
        return row?.owner === this.instanceId;
    }

    async release(jobId: string): Promise<void> {
        await rows(this.pool, 'UPDATE replay_jobs SET owner = NULL WHERE id = $1 AND owner = $2', [jobId, this.instanceId]);
    }

    async pending(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return rows<ReplayJobItem>(this.pool, 'SELECT position, event_id AS "eventId" FROM replay_job_items WHERE job_id = $1 AND position > $2 AND outcome IS NULL ORDER BY position LIMIT $3', [jobId, afterPosition, limit]);
    }

    async failedItems(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return rows<ReplayJobItem>(this.pool, `SELECT position, event_id AS "eventId" FROM replay_job_items WHERE job_id = $1 AND position > $2 AND outcome = 'failed' ORDER BY position LIMIT $3`, [jobId, afterPosition, limit]);
    }

    async record(jobId: string, progress: ReplayJobProgress): Promise<void> {
        await transaction(this.pool, async (client) => {
            // Only items without an outcome change, and only those count: a send repeated after a takeover counts once.
            const changed = await client.query<{ outcome: 'succeeded' | 'failed' | 'skipped' }>(
                `UPDATE replay_job_items i SET outcome = m.outcome FROM unnest($2::bigint[], $3::text[]) AS m(position, outcome)
                WHERE i.job_id = $1 AND i.position = m.position AND i.outcome IS NULL RETURNING i.outcome`,
                [jobId, progress.outcomes.map((o) => o.position), progress.outcomes.map((o) => o.outcome)],
            );
            const counts = tally(changed.rows.map((r) => r.outcome));
            await client.query('UPDATE replay_jobs SET succeeded = succeeded + $2, failed = failed + $3, skipped = skipped + $4, last_error = coalesce($5, last_error) WHERE id = $1', [
                jobId, counts.succeeded, counts.failed, counts.skipped, progress.lastError ?? null,
            ]);
        });
    }

    async finish(jobId: string, state: 'done' | 'cancelled' | 'failed', lastError?: string): Promise<void> {
        await rows(this.pool, `UPDATE replay_jobs SET state = $2, finished_at = $3, owner = NULL, last_error = coalesce($4, last_error) WHERE id = $1 AND state IN ('queued', 'running')`, [
            jobId, state, Date.now(), lastError ?? null,
        ]);
    }

    async requestCancel(jobId: string): Promise<ReplayJobRecord | undefined> {
        const [row] = await rows<JobRow>(this.pool, CANCEL, [jobId, Date.now()]);
        return row && row.state !== CREATING ? jobFromRow(row) : undefined;
    }
}
