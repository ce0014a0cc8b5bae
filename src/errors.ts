import { STATUS_CODES } from 'node:http';
import type { ErrorDetail } from './api/errors.js';

// One problem found in a request, as a 400 lists it: the API's shape (src/api/errors.ts).
export type { ErrorDetail };

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

/** The most problems a 400 lists in `details`; `moreDetails` says how many more there were. */
export const MAX_DETAILS = 20;
/** The longest `path` or `message` of a listed problem, in characters (a field name may be megabytes). */
const DETAIL_CHARS = 256;

const clip = (text: string): string => (text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS - 1)}…` : text);

/**
 * A 400 listing problems: at most MAX_DETAILS of `details`, each clipped, and `moreDetails`, how
 * many of `total` (by default all of `details`) were left out. Every 400 with `details` is built here.
 */
export function validationError(message: string, details: readonly ErrorDetail[], total = details.length): BadRequestError {
    const shown = details.slice(0, MAX_DETAILS).map((d) => ({ path: clip(d.path), message: clip(d.message) }));
    const extra: Record<string, unknown> = { details: shown };
    if (total > shown.length) extra.moreDetails = total - shown.length;
    return new BadRequestError(message, extra);
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
