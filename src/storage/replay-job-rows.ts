import type { ReplayItemOutcome, ReplayJobRecord, ReplayJobSpec, ReplayJobState } from './replay-job-store.js';

// The tables of bulk replay jobs are the same on SQLite and PostgreSQL (only the types differ): one
// row per job with its counters, one per item of its set with its outcome. A job being built has
// the state `creating`, which no read shows.

/** The hidden state of a job whose set is still being written. */
export const CREATING = 'creating';

/** A job row as either backend reads it (SQLite gives 0/1 where PostgreSQL gives a boolean). */
export interface JobRow {
    id: string;
    spec: string;
    state: string;
    total: number;
    succeeded: number;
    failed: number;
    skipped: number;
    created_at: number;
    started_at: number | null;
    finished_at: number | null;
    last_error: string | null;
    cancel_requested: number | boolean;
}

/** The columns of a job row, in JobRow's order. */
export const JOB_COLUMNS = 'id, spec, state, total, succeeded, failed, skipped, created_at, started_at, finished_at, last_error, cancel_requested';

/** The record of a row. */
export function jobFromRow(row: JobRow): ReplayJobRecord {
    return {
        id: row.id,
        spec: JSON.parse(row.spec) as ReplayJobSpec,
        state: row.state as ReplayJobState,
        total: Number(row.total),
        succeeded: Number(row.succeeded),
        failed: Number(row.failed),
        skipped: Number(row.skipped),
        createdAt: Number(row.created_at),
        startedAt: row.started_at === null ? null : Number(row.started_at),
        finishedAt: row.finished_at === null ? null : Number(row.finished_at),
        lastError: row.last_error,
        cancelRequested: row.cancel_requested === true || row.cancel_requested === 1,
    };
}

/** How many of each outcome a list holds: what the counters of its job grow by. */
export function tally(outcomes: readonly ReplayItemOutcome[]): { succeeded: number; failed: number; skipped: number } {
    const counts = { succeeded: 0, failed: 0, skipped: 0 };
    for (const o of outcomes) counts[o]++;
    return counts;
}
