// Bulk replay jobs (issue 37): the bodies POST /replay-jobs and POST /replay-jobs/:id/retry take, and
// the job, dry run and list they answer. ajv validates the bodies with these very schemas.
import { LOG_SUMMARY_SCHEMA } from './capture.js';
import type { Shape } from './schema.js';

/** The bounds of a job's pace (issue 37: 10/s by default, 1–1,000; concurrency 1 by default, 1–32). */
export const JOB_LIMITS = { rate: { min: 1, max: 1000, default: 10 }, concurrency: { min: 1, max: 32, default: 1 } } as const;

const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";
const RATE = { type: 'number', minimum: JOB_LIMITS.rate.min, maximum: JOB_LIMITS.rate.max, description: 'Sends started per second (default 10): never ahead of that schedule; up to 10 % faster while a stall of up to 5 s is made up.' } as const;
const CONCURRENCY = { type: 'integer', minimum: JOB_LIMITS.concurrency.min, maximum: JOB_LIMITS.concurrency.max, description: 'Sends in flight at once at most (default 1).' } as const;
const STOP_AFTER = { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'The job stops, `failed`, once this many sends failed; absent: it never stops for failures.' } as const;
const URL = { type: 'string', minLength: 1, maxLength: 4096, description: 'Where every capture is sent; the same SSRF guard as `/replay` checks it.' } as const;

/** What each send changes about the replayed request, as POST /replay's edit body does (no `body`: a job sends each capture's own bytes). */
export const JOB_EDITS_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    properties: {
        method: { type: 'string', pattern: '^[A-Za-z]{1,20}$', description: 'Sent instead of the captured method.' },
        headers: {
            type: 'object',
            description: 'Merged over the replayed headers case-insensitively; `null` removes one.',
            propertyNames: { pattern: TOKEN, maxLength: 256 },
            additionalProperties: { type: ['string', 'null'], maxLength: 8192 },
            maxProperties: 100,
        },
    },
} as const;

/** POST /replay-jobs body (component ReplayJobCreate). */
export const REPLAY_JOB_CREATE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['filters', 'url'],
    properties: {
        filters: {
            type: 'string',
            maxLength: 65_536,
            description: 'A GET /logs query string of filters (at least one), e.g. `webhookId=wh_x&statusCode[gte]=500&timestamp[gte]=2026-11-27T00:00:00Z`. Paging and sort parameters are refused.',
        },
        url: URL,
        dryRun: { type: 'boolean', description: 'Count and sample what would be sent; send nothing, create no job.' },
        order: { type: 'string', enum: ['oldest', 'newest'], description: 'By capture time (default `oldest`).' },
        ratePerSecond: RATE,
        concurrency: CONCURRENCY,
        stopAfterFailures: STOP_AFTER,
        edits: JOB_EDITS_SCHEMA,
        resign: { type: 'boolean', description: "Sign each body anew with the run's signature secret, as `/replay` does with `resign: true`." },
    },
} as const;

/** A validated POST /replay-jobs body. */
export type ReplayJobCreate = Shape<typeof REPLAY_JOB_CREATE_SCHEMA>;

/** POST /replay-jobs/:id/retry body, optional: what the new job changes (component ReplayJobRetry). */
export const REPLAY_JOB_RETRY_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    properties: { url: URL, ratePerSecond: RATE, concurrency: CONCURRENCY, stopAfterFailures: STOP_AFTER },
} as const;

/** A validated POST /replay-jobs/:id/retry body. */
export type ReplayJobRetry = Shape<typeof REPLAY_JOB_RETRY_SCHEMA>;

/** The states of a job. */
export const JOB_STATES = ['queued', 'running', 'done', 'cancelled', 'failed'] as const;
/** A job's state: `done`, `cancelled` and `failed` are final. */
export type ReplayJobState = (typeof JOB_STATES)[number];

const DATE_TIME = { type: 'string', format: 'date-time' } as const;
const NULLABLE_DATE_TIME = { type: ['string', 'null'], format: 'date-time' } as const;
const COUNT = (description: string) => ({ type: 'integer', minimum: 0, description }) as const;

/** A bulk replay job (component ReplayJob). */
export const REPLAY_JOB_SCHEMA = {
    type: 'object',
    required: [
        'id', 'state', 'total', 'sent', 'succeeded', 'failed', 'skipped', 'url', 'filters', 'order', 'ratePerSecond', 'concurrency',
        'stopAfterFailures', 'resign', 'retryOf', 'cancelRequested', 'createdAt', 'startedAt', 'finishedAt', 'lastError', 'statusUrl', 'streamUrl',
    ],
    properties: {
        id: { type: 'string', example: 'rj_V1StGXR8Z5jdHi6BmyTaq' },
        state: { type: 'string', enum: JOB_STATES, description: '`queued`, `running`, then `done`, `cancelled` or `failed` (stopAfterFailures reached).' },
        total: COUNT('Captures in the set, fixed when the job was created.'),
        sent: COUNT('Sends that ended: `succeeded` + `failed`.'),
        succeeded: COUNT('Sends the target answered 2xx.'),
        failed: COUNT('Sends the target answered otherwise, or never answered (errors included).'),
        skipped: COUNT('Captures deleted before their turn: not sent.'),
        url: { type: 'string', description: 'The target (a key of this service in it is masked).' },
        filters: { type: 'string', description: 'The GET /logs filters that chose the set.' },
        order: { type: 'string', enum: ['oldest', 'newest'] },
        ratePerSecond: { type: 'number' },
        concurrency: { type: 'integer' },
        stopAfterFailures: { type: ['integer', 'null'] },
        resign: { type: 'boolean' },
        retryOf: { type: ['string', 'null'], description: 'The job whose failed captures this one sends again (POST /replay-jobs/{id}/retry).' },
        cancelRequested: { type: 'boolean', description: 'DELETE was called; the state turns `cancelled` once the sends in flight have ended.' },
        createdAt: DATE_TIME,
        startedAt: NULLABLE_DATE_TIME,
        finishedAt: NULLABLE_DATE_TIME,
        lastError: { type: ['string', 'null'], description: 'The latest failed send: its status or error, and the capture.' },
        statusUrl: { type: 'string', format: 'uri', description: 'GET it for the job.' },
        streamUrl: { type: 'string', format: 'uri', description: 'Server-Sent Events of the job: a snapshot per change, until it ends.' },
    },
} as const;

/** A bulk replay job as the API shows it. */
export type ReplayJob = Shape<typeof REPLAY_JOB_SCHEMA>;

/** The answer of a dry run (component ReplayJobDryRun). */
export const REPLAY_JOB_DRY_RUN_SCHEMA = {
    type: 'object',
    required: ['matched', 'sample', 'url', 'estimatedSeconds'],
    properties: {
        matched: COUNT('Captures the filters match now.'),
        sample: { type: 'array', items: LOG_SUMMARY_SCHEMA, description: 'The first 5 in the order they would be sent.' },
        url: { type: 'string' },
        estimatedSeconds: { type: 'integer', minimum: 0, description: '`matched` / `ratePerSecond`, rounded up: the least the job would take.' },
    },
} as const;

/** The answer of a dry run. */
export type ReplayJobDryRun = Shape<typeof REPLAY_JOB_DRY_RUN_SCHEMA>;

/** GET /replay-jobs (component ReplayJobList). */
export const REPLAY_JOB_LIST_SCHEMA = {
    type: 'object',
    required: ['items'],
    properties: { items: { type: 'array', items: REPLAY_JOB_SCHEMA, description: 'Newest first (at most 100).' } },
} as const;

/** GET /replay-jobs. */
export type ReplayJobList = Shape<typeof REPLAY_JOB_LIST_SCHEMA>;
