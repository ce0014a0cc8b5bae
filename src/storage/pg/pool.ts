import pg from 'pg';
import { StoreUnavailableError } from '../../errors.js';
import type { Logger } from '../../lib/log.js';

/** Options of the connection pool. */
export interface PoolOptions {
    url: string;
    log: Logger;
    poolSize?: number;
    statementTimeoutMs?: number;
}

// Our bigint columns (seq, ts, size) and count(*) stay far below 2^53: read them as numbers. The
// parser is set on our pool only, not process-wide on the driver.
const INT8 = 20;
const types: pg.CustomTypesConfig = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8 && format !== 'binary' ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Opens the pool. An idle connection's error is logged, never thrown (it would crash the process). */
export function createPool(options: PoolOptions): pg.Pool {
    const pool = new pg.Pool({
        connectionString: options.url,
        max: options.poolSize ?? 10,
        connectionTimeoutMillis: 2000,
        idleTimeoutMillis: 10_000,
        statement_timeout: options.statementTimeoutMs ?? 30_000,
        keepAlive: true,
        types,
    });
    pool.on('error', (error) => options.log.warn('a PostgreSQL connection failed while idle', { error: error.message }));
    return pool;
}

// SQLSTATE classes of a server that is away or refusing: 08 connection exception, 53 insufficient
// resources (too many connections), 57 operator intervention (shutdown, cannot connect now), 58 system error.
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Whether an error says the database cannot be reached (rather than that a statement is wrong). */
export function isConnectionError(error: unknown): boolean {
    if (error instanceof StoreUnavailableError) return true;
    if (!(error instanceof Error)) return false;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') {
        if (NETWORK_CODES.has(code)) return true;
        // 57014 is a statement cancelled by statement_timeout: the database is there but too slow.
        if (code.length === 5 && UNAVAILABLE_CLASSES.has(code.slice(0, 2))) return true;
    }
    return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is not open|Client was closed|Cannot use a pool after calling end|not queryable|Query read timeout|Connection ended/i.test(error.message);
}

/** The error to throw for `error`: StoreUnavailableError for a database that is away, else the error itself. */
export function storeError(error: unknown): unknown {
    if (error instanceof StoreUnavailableError) return error;
    if (isConnectionError(error)) return new StoreUnavailableError(`The database is unavailable (${error instanceof Error ? error.message : String(error)}); retry shortly`);
    return error;
}

/** Runs `fn`, turning a connection problem into StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
        return await fn();
    } catch (error) {
        throw storeError(error);
    }
}

/**
 * A statement each connection prepares once and then only executes: the statements run at every
 * group commit or export batch read the UNION ALL views over two tables with ~25 indexes, which
 * took ~0.2 ms to plan against ~0.02 ms to run (bench/README.md, PostgreSQL ingest).
 */
export interface Prepared {
    name: string;
    text: string;
}

export const prepared = (name: string, text: string): Prepared => ({ name, text });

/** Rows of one statement; a lost connection rejects with StoreUnavailableError. */
export async function rows<R>(pool: pg.Pool, sql: string | Prepared, params: unknown[] = []): Promise<R[]> {
    try {
        return (await (typeof sql === 'string' ? pool.query(sql, params) : pool.query({ ...sql, values: params }))).rows as R[];
    } catch (error) {
        throw storeError(error);
    }
}

/**
 * Runs `fn` in one transaction on one connection. A connection that failed is discarded, not
 * returned to the pool; a lost connection rejects with StoreUnavailableError.
 */
export async function transaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await guarded(() => pool.connect());
    // Between statements an error event has no query to reject: without a listener it would crash.
    let broken: Error | undefined;
    const onError = (error: Error): void => {
        broken = error;
    };
    client.on('error', onError);
    try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        client.off('error', onError);
        client.release();
        return result;
    } catch (error) {
        broken ??= isConnectionError(error) ? (error as Error) : undefined;
        if (!broken) await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        client.off('error', onError);
        client.release(broken ?? undefined);
        throw storeError(error);
    }
}
