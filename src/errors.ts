import { STATUS_CODES } from 'node:http';

/** One problem found in a request, as listed in a 400 body. */
export interface ErrorDetail {
    path: string;
    message: string;
}

/**
 * The one error type the service throws on purpose. `http/respond.ts` turns it into
 * `{status, error, message, ...extra}`; anything else becomes a bare 500 with a requestId.
 */
export class AppError extends Error {
    readonly status: number;
    readonly extra: Record<string, unknown>;
    /** Headers the error answer must carry (Retry-After, Connection: close). */
    readonly headers: Record<string, string>;

    constructor(status: number, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
        super(message);
        this.name = 'AppError';
        this.status = status;
        this.extra = extra;
        this.headers = headers;
    }

    /** The standard reason phrase for the status, e.g. `Not Found`. */
    get error(): string {
        return STATUS_CODES[this.status] ?? 'Error';
    }
}

/** A resource that does not exist (or is no longer served). Storage throws this, never a status. */
export class NotFoundError extends AppError {
    constructor(message: string) {
        super(404, message);
        this.name = 'NotFoundError';
    }
}

/** A request parameter or body that cannot be accepted. */
export class BadRequestError extends AppError {
    constructor(message: string, extra: Record<string, unknown> = {}) {
        super(400, message, extra);
        this.name = 'BadRequestError';
    }
}

/**
 * The shared database cannot be reached (PostgreSQL mode): nothing was stored, the sender should
 * retry. Storage throws it; every route answers 503 with Retry-After.
 */
export class StoreUnavailableError extends AppError {
    constructor(message = 'The database is unavailable; retry shortly', retryAfterSeconds = 5) {
        super(503, message, {}, { 'Retry-After': String(retryAfterSeconds) });
        this.name = 'StoreUnavailableError';
    }
}

/** A configuration value that stops the start; the message names the field and the rule. */
export class ConfigError extends Error {
    constructor(message: string) {
        super(message);
        this.name = 'ConfigError';
    }
}
