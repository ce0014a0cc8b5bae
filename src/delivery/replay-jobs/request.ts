import { JOB_LIMITS, REPLAY_JOB_CREATE_SCHEMA, REPLAY_JOB_RETRY_SCHEMA, type ReplayJobCreate, type ReplayJobRetry } from '../../api/replay-jobs.js';
import { AppError, validationError } from '../../errors.js';
import { parseFilterSet } from '../../filters/set.js';
import type { Filter } from '../../filters/types.js';
import { PAGING_PARAMS } from '../../http/parse-logs-query.js';
import type { ReplayJobSpec } from '../../storage/replay-job-store.js';
import { boundedValidator } from '../../webhooks/bounded-validation.js';
import { parseReplayEdit } from '../replay-edit.js';

/** A job request, validated but for its target (the guard checks that, resolving its name). */
export interface JobRequest {
    spec: ReplayJobSpec;
    filters: Filter[];
    dryRun: boolean;
}

const validators = { create: boundedValidator(REPLAY_JOB_CREATE_SCHEMA), retry: boundedValidator(REPLAY_JOB_RETRY_SCHEMA) };
const WHAT = 'replay job filters';

/** A 400 with one problem at `path`. */
const refused = (message: string, path: string, problem: string): AppError => validationError(message, [{ path, message: problem }]);

/**
 * Validates a POST /replay-jobs body (parsed from `text`): the schema (unknown fields, ranges), then
 * the filters (the GET /logs language, at least one, no paging or sort), the edits (as POST /replay
 * checks its own) and `resign` (a secret must be configured). Throws 400 with `details`.
 */
export function parseJobRequest(body: unknown, text: string, canResign: boolean): JobRequest {
    const problems = validators.create(body, text);
    if (problems) throw validationError('The request body does not match the replay job schema', problems.details, problems.total);
    const given = body as ReplayJobCreate;
    const filters = parseJobFilters(given.filters);
    const edits = given.edits ?? {};
    try {
        parseReplayEdit(Buffer.from(JSON.stringify(edits)));
    } catch (error) {
        if (error instanceof AppError) throw refused('The edits cannot be applied', 'edits', error.message);
        throw error;
    }
    if (given.resign === true && !canResign) throw refused('Cannot re-sign', 'resign', 'no signatureVerification secret is configured');
    const spec: ReplayJobSpec = {
        url: given.url.trim(),
        filters: given.filters,
        order: given.order ?? 'oldest',
        ratePerSecond: given.ratePerSecond ?? JOB_LIMITS.rate.default,
        concurrency: given.concurrency ?? JOB_LIMITS.concurrency.default,
        stopAfterFailures: given.stopAfterFailures ?? null,
        edits: { ...(edits.method !== undefined ? { method: edits.method.toUpperCase() } : {}), ...(edits.headers !== undefined ? { headers: edits.headers } : {}) },
        resign: given.resign ?? false,
        retryOf: null,
    };
    return { spec, filters, dryRun: given.dryRun ?? false };
}

/** The filters of a job: those of GET /logs, at least one (as DELETE /logs requires), and no paging or sort. */
export function parseJobFilters(text: string): Filter[] {
    const params = new URLSearchParams(text);
    const paging = [...params.keys()].find((name) => PAGING_PARAMS.has(name));
    if (paging !== undefined) throw refused('The filters take no paging or sort', 'filters', `'${paging}' is a paging or sort parameter: a job sends every match, in the order its \`order\` says`);
    let filters: Filter[];
    try {
        filters = parseFilterSet(params, { what: WHAT }).filters;
    } catch (error) {
        if (error instanceof AppError) throw refused('The filters cannot be used', 'filters', error.message);
        throw error;
    }
    if (filters.length === 0) throw refused('A replay job needs at least one filter', 'filters', 'needs at least one GET /logs filter (as DELETE /logs does): a job never replays everything by accident');
    return filters;
}

/** Validates a POST /replay-jobs/:id/retry body (empty: nothing changes). Throws 400 with `details`. */
export function parseRetryRequest(body: unknown, text: string): ReplayJobRetry {
    const problems = validators.retry(body, text);
    if (problems) throw validationError('The request body does not match the replay job retry schema', problems.details, problems.total);
    return body as ReplayJobRetry;
}
