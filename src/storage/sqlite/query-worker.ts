import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../errors.js';
import { lowerThreadPriority } from '../../lib/thread-priority.js';
import type { LogsQuery } from '../query-types.js';
import { runLogsQuery } from './query.js';
import { prepareReader } from './schema.js';

const QUERY_NICENESS = 10;

/** A message to a query worker. */
export interface QueryRequest {
    n: number;
    query: LogsQuery;
}

/** A query worker's answer; `error` carries an AppError's status and message, never a stack. */
export interface QueryReply {
    n: number;
    page?: ReturnType<typeof runLogsQuery>;
    error?: { status: number; message: string; extra: Record<string, unknown> };
}

// Queries run here, off the event loop that serves ingest, each on its own read-only connection.
const db = new Database((workerData as { file: string }).file, { readonly: true, fileMustExist: true });
prepareReader(db);
// A search that scans a million bodies must not take CPU from capture: at niceness 10 this thread
// gets about a tenth of a core that the ingest threads (main, writer) want, and all of an idle one.
lowerThreadPriority(QUERY_NICENESS);

parentPort!.on('message', ({ n, query }: QueryRequest) => {
    // Buffers lose their prototype in transit; restore them for the IP filter.
    for (const f of query.filters) {
        if (f.kind === 'ip') {
            f.lo = Buffer.from(f.lo);
            f.hi = Buffer.from(f.hi);
        }
    }
    let reply: QueryReply;
    try {
        reply = { n, page: runLogsQuery(db, query) };
    } catch (error) {
        reply = error instanceof AppError
            ? { n, error: { status: error.status, message: error.message, extra: error.extra } }
            : { n, error: { status: 500, message: error instanceof Error ? error.message : String(error), extra: {} } };
    }
    parentPort!.postMessage(reply);
});
