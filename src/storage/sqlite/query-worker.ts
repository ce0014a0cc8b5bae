import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { lowerThreadPriority } from '../../lib/thread-priority.js';
import type { LogsPage, LogsQuery } from '../query-types.js';
import { finishPass, restoreBuffers, type CountRequest, type PassRequest, type PassResult } from './query/pass.js';
import { countRangeSteps, MAX_SLICED_REACH, scanRowsSteps, type Steps } from './query/scan.js';
import { planLogsQuery } from './query.js';
import { prepareReader } from './schema.js';

const QUERY_NICENESS = 10;

/** How a query worker is set up: its database, scan slice bounds, and the smallest store it splits passes of. */
export interface QueryWorkerData {
    file: string;
    slice?: number;
    sliceBytes?: number;
    splitFrom: number;
}

/**
 * A message to a query worker: a query (with `split`, a pass over every body comes back as a
 * `pass` for the pool to split, and a total that reads every row as a `count` next to its page),
 * or one seq range (lo, hi] of such a pass or count.
 */
export type QueryRequest =
    | { n: number; query: LogsQuery; split: boolean }
    | { n: number; part: { pass: PassRequest; lo: number; hi: number } }
    | { n: number; counting: { count: CountRequest; lo: number; hi: number } };

/** Stops request `cancel` at its next slice (a time limit passed, or its client went away). */
export interface QueryCancel {
    cancel: number;
}

/**
 * A query worker's answer; `error` carries an AppError's status and message, never a stack.
 * `stopped`: the request was cancelled before it finished.
 */
export interface QueryReply {
    n: number;
    stopped?: boolean;
    page?: LogsPage;
    pass?: PassRequest;
    part?: PassResult;
    count?: CountRequest;
    counted?: number;
    error?: { status: number; message: string; extra: Record<string, unknown> };
}

// Queries run here, off the event loop that serves ingest, each on its own read-only connection.
const config = workerData as QueryWorkerData;
const db = new Database(config.file, { readonly: true, fileMustExist: true });
prepareReader(db);
// A search that scans a million bodies must not take CPU from capture: at niceness 10 this thread
// gets about a tenth of a core that the ingest threads (main, writer) want, and all of an idle one.
lowerThreadPriority(QUERY_NICENESS);

/** Requests in progress here, and those of them cancelled (checked after every slice). */
const running = new Set<number>();
const cancelled = new Set<number>();

class Stopped extends Error {}

/**
 * Runs steps, giving the event loop a turn after each slice: messages that arrived meanwhile (a
 * quick query, a cancel) are handled before the next slice, so one long pass neither holds up
 * other queries on this worker for more than a slice nor runs on after it was cancelled.
 */
async function drive<T>(n: number, steps: Steps<T>): Promise<T> {
    for (;;) {
        const r = steps.next();
        if (r.done) return r.value;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (cancelled.has(n)) throw new Stopped();
    }
}

async function answer(request: QueryRequest): Promise<Omit<QueryReply, 'n'>> {
    const { n } = request;
    if ('part' in request) {
        const { pass, lo, hi } = request.part;
        restoreBuffers(pass.shape.params);
        return { part: await drive(n, scanRowsSteps(db, pass.shape, pass.reach, hi, pass.withTotal, config, lo)) };
    }
    if ('counting' in request) {
        const { count, lo, hi } = request.counting;
        restoreBuffers(count.shape.params);
        return { counted: await drive(n, countRangeSteps(db, count.shape, lo, hi, true, config)) };
    }
    const { query } = request;
    // Buffers lose their prototype in transit; restore them for the IP filter.
    for (const f of query.filters) if (f.kind === 'ip') restoreBuffers(f);
    const planned = planLogsQuery(db, query, request.split ? { ...config, deferCountFrom: config.splitFrom } : config);
    if ('page' in planned) return planned;
    const { pass } = planned;
    // Only passes whose pieces merge cheaply are split; the pool merges them on its thread.
    if (request.split && pass.top >= config.splitFrom && pass.reach <= MAX_SLICED_REACH) return { pass };
    return { page: finishPass(pass, await drive(n, scanRowsSteps(db, pass.shape, pass.reach, pass.top, pass.withTotal, config))) };
}

async function handle(request: QueryRequest): Promise<QueryReply> {
    running.add(request.n);
    try {
        return { n: request.n, ...(await answer(request)) };
    } catch (error) {
        if (error instanceof Stopped) return { n: request.n, stopped: true };
        return error instanceof AppError
            ? { n: request.n, error: { status: error.status, message: error.message, extra: error.extra } }
            : { n: request.n, error: { status: 500, message: error instanceof Error ? error.message : String(error), extra: {} } };
    } finally {
        running.delete(request.n);
        cancelled.delete(request.n);
    }
}

parentPort!.on('message', (message: QueryRequest | QueryCancel) => {
    if ('cancel' in message) {
        // A request that already finished (or never came) has nothing to stop.
        if (running.has(message.cancel)) cancelled.add(message.cancel);
        return;
    }
    void handle(message).then((reply) => parentPort!.postMessage(reply));
});
