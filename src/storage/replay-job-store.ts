import type { ReplayJobState } from '../api/replay-jobs.js';

export type { ReplayJobState };

/** How a job sends: what was asked for at creation, kept whole with the job. */
export interface ReplayJobSpec {
    /** The target as given (it may carry a key; the API masks it when it shows the job). */
    url: string;
    /** The GET /logs query string of filters that chose the set. */
    filters: string;
    order: 'oldest' | 'newest';
    ratePerSecond: number;
    concurrency: number;
    stopAfterFailures: number | null;
    edits: { method?: string; headers?: Record<string, string | null> };
    resign: boolean;
    retryOf: string | null;
}

/** A job as kept. Times are ms since the epoch. `sent` is succeeded + failed. */
export interface ReplayJobRecord {
    id: string;
    spec: ReplayJobSpec;
    state: ReplayJobState;
    total: number;
    succeeded: number;
    failed: number;
    skipped: number;
    createdAt: number;
    startedAt: number | null;
    finishedAt: number | null;
    lastError: string | null;
    cancelRequested: boolean;
}

/** A position before every item's: where reading a job's items starts. */
export const BEFORE_ALL = -Number.MAX_SAFE_INTEGER;

/** One capture of a job's set: its place in the sending order (ascending), and its id. */
export interface ReplayJobItem {
    position: number;
    eventId: string;
}

/** What became of one item. */
export type ReplayItemOutcome = 'succeeded' | 'failed' | 'skipped';

/** Outcomes to record, with the latest failure's message when one failed. */
export interface ReplayJobProgress {
    outcomes: readonly { position: number; outcome: ReplayItemOutcome }[];
    lastError?: string;
}

/**
 * Bulk replay jobs and their fixed sets of captures. One instance runs a job at a time (claim); every
 * instance reads it. A job is built in steps (create, addItems, open) and is invisible until opened.
 * Every method rejects with StoreUnavailableError while a shared database is away; none throws
 * NotFoundError: an unknown job reads as undefined and writes to one change nothing.
 */
export interface ReplayJobStore {
    /** Starts a job that no read shows and nobody claims until `open`. */
    create(job: { id: string; spec: ReplayJobSpec; createdAt: number }): Promise<void>;
    /** Adds items to a job being built (positions unique within the job). */
    addItems(jobId: string, items: readonly ReplayJobItem[]): Promise<void>;
    /** Makes a built job visible and claimable: `queued`, with `total` items. */
    open(jobId: string, total: number): Promise<void>;
    /** Deletes a job and its items (a build that failed). */
    discard(jobId: string): Promise<void>;
    /** The job, once opened; undefined otherwise. Its owner sees a cancel asked elsewhere after its next `renew` at the latest. */
    get(id: string): Promise<ReplayJobRecord | undefined>;
    /** Opened jobs, newest first, at most `limit`. */
    list(limit: number): Promise<ReplayJobRecord[]>;
    /**
     * Takes one queued or running job nobody runs (unowned, or its owner is gone: a process that
     * stopped, an instance that stopped beating, a lease that ran out) for this instance, oldest
     * first, and marks it running (startedAt set once). Undefined when there is none.
     */
    claim(): Promise<ReplayJobRecord | undefined>;
    /** Whether this instance still runs the job (and, where a lease is kept, extends it). */
    renew(jobId: string): Promise<boolean>;
    /** Gives the job up without ending it, so that another instance (or the next start) goes on with it. */
    release(jobId: string): Promise<void>;
    /** Up to `limit` items after `afterPosition` that have no outcome, in position order. */
    pending(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]>;
    /** Up to `limit` items after `afterPosition` whose outcome is `failed`, in position order. */
    failedItems(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]>;
    /**
     * Records outcomes and counts them; an item that has one already keeps it and is not counted
     * again (a send repeated after a takeover). Resolves once durable.
     */
    record(jobId: string, progress: ReplayJobProgress): Promise<void>;
    /** Ends a job (`done`, `cancelled` or `failed`): finishedAt set, no owner any more. */
    finish(jobId: string, state: 'done' | 'cancelled' | 'failed', lastError?: string): Promise<void>;
    /**
     * Asks a job to stop: a queued one is cancelled at once, a running one gets cancelRequested (its
     * runner ends it), a finished one is left as it is. Resolves with the job after the change.
     */
    requestCancel(jobId: string): Promise<ReplayJobRecord | undefined>;
}
