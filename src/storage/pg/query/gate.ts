import { AppError } from '../../../errors.js';
import type { LogsPage, LogsQuery } from '../../query-types.js';
import { queryCancelled, queryRefused, queryTimedOut } from '../../query-errors.js';
import { PG_QUERY_TIMEOUT_MS } from './run.js';

/** Bounds of PostgreSQL queries, as the SQLite pool takes them (QueryPoolOptions, POOL_LIMITS). */
export interface PgQueryLimits {
    /** Queries admitted at once, running or waiting; one more is refused with 503. */
    maxInFlight?: number;
    /** Queries holding a connection at once; the others wait here, not in the connection pool. */
    maxRunning?: number;
    /** Time limit of one query from admission, ms (0: none); over it the query is stopped with 504. */
    timeoutMs?: number;
}

/** The SQLite pool's bound on queries admitted at once (POOL_LIMITS.maxInFlight). */
const MAX_IN_FLIGHT = 32;

/** What runs one admitted query: `timeoutMs` is the time left (0: none), `signal` stops it. */
export type RunQuery = (q: LogsQuery, signal: AbortSignal, timeoutMs: number) => Promise<LogsPage>;

/**
 * Admission for PostgreSQL queries, with the SQLite pool's answers: beyond `maxInFlight` admitted a
 * query is refused with 503 + Retry-After; at most `maxRunning` hold a connection, the rest wait in
 * line here (waiting in pg's pool would end in its connect timeout, which reads as "database
 * away"); past the time limit, counted from admission, the query is stopped with 504 and its
 * statement cancelled; a caller that leaves cancels it (499). Counts refused, timed out, cancelled.
 */
export class QueryGate {
    readonly stats = { refused: 0, timedOut: 0, cancelled: 0 };
    private inFlight = 0;
    private running = 0;
    private readonly line: Waiter[] = [];
    private readonly maxInFlight: number;
    private readonly maxRunning: number;
    private readonly timeoutMs: number;

    constructor(private readonly runQuery: RunQuery, limits: PgQueryLimits = {}) {
        this.maxInFlight = limits.maxInFlight ?? MAX_IN_FLIGHT;
        this.maxRunning = Math.max(1, limits.maxRunning ?? 4);
        this.timeoutMs = limits.timeoutMs ?? PG_QUERY_TIMEOUT_MS;
    }

    /** Runs `q` once admitted; rejects with 503 when full, 504 past the time limit, 499 when `signal` aborts. */
    async run(q: LogsQuery, signal?: AbortSignal): Promise<LogsPage> {
        if (signal?.aborted) throw queryCancelled();
        if (this.inFlight >= this.maxInFlight) {
            this.stats.refused++;
            throw queryRefused(this.maxInFlight);
        }
        this.inFlight++;
        const stop = new AbortController();
        let reason: AppError | undefined;
        const end = (why: AppError): void => {
            if (reason) return;
            reason = why;
            if (why.status === 504) this.stats.timedOut++;
            else this.stats.cancelled++;
            stop.abort();
        };
        const onAbort = (): void => end(queryCancelled());
        signal?.addEventListener('abort', onAbort, { once: true });
        const started = Date.now();
        const timer = this.timeoutMs > 0 ? setTimeout(() => end(queryTimedOut(this.timeoutMs)), this.timeoutMs) : undefined;
        const stopped = new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(reason), { once: true }));
        stopped.catch(() => undefined);
        const place = this.turn();
        try {
            await Promise.race([place.ready, stopped]);
            const left = this.timeoutMs > 0 ? Math.max(1, this.timeoutMs - (Date.now() - started)) : 0;
            return await Promise.race([this.runQuery(q, stop.signal, left), stopped]);
        } catch (error) {
            // The statement's own timeout may win the race with the timer: the same 504, counted once.
            if (!reason && error instanceof AppError && error.status === 504) end(queryTimedOut(this.timeoutMs));
            throw reason ?? error;
        } finally {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            this.inFlight--;
            // A query stopped while in line leaves it; one holding a place (or just handed one) passes it on.
            if (place.waiter.granted) this.release();
            else this.line.splice(this.line.indexOf(place.waiter), 1);
        }
    }

    /** A place in line; `ready` resolves when a running place is this query's. */
    private turn(): { ready: Promise<void>; waiter: Waiter } {
        const waiter: Waiter = { granted: false, grant: () => undefined };
        if (this.running < this.maxRunning) {
            this.running++;
            waiter.granted = true;
            return { ready: Promise.resolve(), waiter };
        }
        const ready = new Promise<void>((resolve) => {
            waiter.grant = () => {
                waiter.granted = true;
                resolve();
            };
        });
        this.line.push(waiter);
        return { ready, waiter };
    }

    private release(): void {
        const next = this.line.shift();
        if (next) next.grant();
        else this.running--;
    }
}

interface Waiter {
    granted: boolean;
    grant: () => void;
}
