import type { Database } from 'better-sqlite3';
import { CREATING } from '../replay-job-rows.js';
import type { ReplayItemOutcome } from '../replay-job-store.js';

/** The tables of bulk replay jobs (replay-job-rows.ts); items are kept in sending order by position. */
export const REPLAY_JOBS_DDL = `
CREATE TABLE IF NOT EXISTS replay_jobs (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    total INTEGER NOT NULL DEFAULT 0,
    succeeded INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    last_error TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS replay_jobs_created ON replay_jobs(created_at, id);
CREATE TABLE IF NOT EXISTS replay_job_items (
    job_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    event_id TEXT NOT NULL,
    outcome TEXT,
    PRIMARY KEY (job_id, position)
) WITHOUT ROWID;
`;

/** A change to jobs, applied by the writer in its group commit. */
export type JobWrite =
    | { kind: 'create'; id: string; spec: string; createdAt: number }
    | { kind: 'items'; jobId: string; items: [number, string][] }
    | { kind: 'open'; jobId: string; total: number }
    | { kind: 'discard'; jobId: string }
    | { kind: 'claim'; owner: string; now: number }
    | { kind: 'release'; jobId: string; owner: string }
    | { kind: 'record'; jobId: string; outcomes: [number, ReplayItemOutcome][]; lastError?: string }
    | { kind: 'finish'; jobId: string; state: 'done' | 'cancelled' | 'failed'; now: number; lastError?: string }
    | { kind: 'cancel'; jobId: string; now: number };

/** The writer's side of jobs: statements prepared on first use (most runs never make a job). */
export function jobWriter(db: Database): (write: JobWrite) => { claimed?: string | null } {
    let s: ReturnType<typeof prepare> | undefined;
    return (w) => {
        s ??= prepare(db);
        switch (w.kind) {
            case 'create':
                s.create.run(w.id, w.spec, CREATING, w.createdAt);
                return {};
            case 'items':
                for (const [position, eventId] of w.items) s.item.run(w.jobId, position, eventId);
                return {};
            case 'open':
                s.open.run(w.total, w.jobId, CREATING);
                return {};
            case 'discard':
                s.dropItems.run(w.jobId);
                s.dropJob.run(w.jobId);
                return {};
            case 'claim':
                return { claimed: (s.claim.get({ owner: w.owner, now: w.now }) as string | undefined) ?? null };
            case 'release':
                s.release.run(w.jobId, w.owner);
                return {};
            case 'record': {
                const counts = { succeeded: 0, failed: 0, skipped: 0 };
                for (const [position, outcome] of w.outcomes) if (s.outcome.run(outcome, w.jobId, position).changes > 0) counts[outcome]++;
                s.count.run({ ...counts, error: w.lastError ?? null, id: w.jobId });
                return {};
            }
            case 'finish':
                s.finish.run({ state: w.state, now: w.now, error: w.lastError ?? null, id: w.jobId });
                return {};
            case 'cancel':
                s.cancel.run({ now: w.now, id: w.jobId });
                return {};
        }
    };
}

function prepare(db: Database) {
    return {
        create: db.prepare('INSERT INTO replay_jobs (id, spec, state, created_at) VALUES (?, ?, ?, ?)'),
        item: db.prepare('INSERT OR IGNORE INTO replay_job_items (job_id, position, event_id) VALUES (?, ?, ?)'),
        open: db.prepare(`UPDATE replay_jobs SET state = 'queued', total = ? WHERE id = ? AND state = ?`),
        dropItems: db.prepare('DELETE FROM replay_job_items WHERE job_id = ?'),
        dropJob: db.prepare('DELETE FROM replay_jobs WHERE id = ?'),
        // One process runs every job: a job of any other owner is a previous process's, which is gone.
        claim: db.prepare(`UPDATE replay_jobs SET owner = @owner, state = 'running', started_at = coalesce(started_at, @now)
            WHERE id = (SELECT id FROM replay_jobs WHERE state IN ('queued', 'running') AND (owner IS NULL OR owner <> @owner) ORDER BY created_at, id LIMIT 1)
            RETURNING id`).pluck(),
        release: db.prepare('UPDATE replay_jobs SET owner = NULL WHERE id = ? AND owner = ?'),
        outcome: db.prepare('UPDATE replay_job_items SET outcome = ? WHERE job_id = ? AND position = ? AND outcome IS NULL'),
        count: db.prepare(`UPDATE replay_jobs SET succeeded = succeeded + @succeeded, failed = failed + @failed, skipped = skipped + @skipped,
            last_error = coalesce(@error, last_error) WHERE id = @id`),
        finish: db.prepare(`UPDATE replay_jobs SET state = @state, finished_at = @now, owner = NULL, last_error = coalesce(@error, last_error)
            WHERE id = @id AND state IN ('queued', 'running')`),
        cancel: db.prepare(`UPDATE replay_jobs SET
            state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END,
            finished_at = CASE WHEN state = 'queued' THEN @now ELSE finished_at END,
            cancel_requested = CASE WHEN state IN ('queued', 'running') THEN 1 ELSE cancel_requested END
            WHERE id = @id`),
    };
}
