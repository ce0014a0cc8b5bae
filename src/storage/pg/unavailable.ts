import { StoreUnavailableError } from '../../errors.js';

// Network failures and PostgreSQL's own "connection" answers (SQLSTATE class 08, a server shutting
// down or starting, too many connections): the database is away, not the request wrong.
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
const DRIVER_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Query read timeout|Connection ended/i;

/** Whether `error` means the database cannot be reached (as opposed to a bad statement). */
export function isConnectionError(error: unknown): boolean {
    if (!(error instanceof Error)) return false;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && (NET_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08'))) return true;
    return DRIVER_MESSAGES.test(error.message);
}

/** `error` as thrown out of src/storage/pg: a connection problem becomes StoreUnavailableError. */
export function storeError(error: unknown): unknown {
    return isConnectionError(error) ? new StoreUnavailableError() : error;
}

/** Runs `fn`, turning a connection problem into StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
        return await fn();
    } catch (error) {
        throw storeError(error);
    }
}
