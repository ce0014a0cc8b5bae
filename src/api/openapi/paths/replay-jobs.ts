// /replay-jobs: bulk replay (issue 37): every capture a GET /logs filter matches, re-sent through /replay's code.
import { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../../errors.js';
import { REPLAY_JOB_CREATE_SCHEMA, REPLAY_JOB_DRY_RUN_SCHEMA, REPLAY_JOB_LIST_SCHEMA, REPLAY_JOB_RETRY_SCHEMA, REPLAY_JOB_SCHEMA } from '../../replay-jobs.js';
import { HEADERS, jsonBody, RESPONSES } from '../components.js';
import type { Parameter, PathItems, Response } from '../types.js';

const ID: Parameter = { name: 'id', in: 'path', required: true, description: 'Replay job ID.', schema: { type: 'string' } };
const REQUEST_ID = { 'X-Request-Id': HEADERS['X-Request-Id'] };
const LOCATION = { Location: { description: 'The job (`statusUrl`).', schema: { type: 'string', format: 'uri' } }, ...REQUEST_ID };

const THE_JOB: Response = { description: 'The job.', content: jsonBody(REPLAY_JOB_SCHEMA), headers: REQUEST_ID };
const UNKNOWN: Response = { description: 'No job has this ID.', content: jsonBody(ERROR_SCHEMA, { status: 404, error: 'Not Found', message: "Replay job 'rj_x' not found" }) };
const REFUSED: Response = {
    description:
        'The body is not JSON or does not match the schema (unknown fields, out-of-range numbers), `filters` holds no filter, a paging or sort parameter or one `GET /logs` refuses, the edits cannot be applied, `resign` has no secret to sign with, or the SSRF guard refuses `url` (path `url`; the message is the one `/replay` gives). `details` lists the problems; no job is made.',
    content: jsonBody(VALIDATION_ERROR_SCHEMA),
};
const COMMON = { '401': RESPONSES.Unauthorized, '429': RESPONSES.TooManyRequests, '500': RESPONSES.InternalError };

/** The bulk replay routes. */
export const REPLAY_JOBS_PATHS: PathItems = {
    '/replay-jobs': {
        post: {
            tags: ['Replay'],
            operationId: 'createReplayJob',
            summary: 'Replay every capture a filter matches (bulk replay)',
            description:
                "Selects with the filters of `GET /logs` and sends each capture as `POST /replay` would: byte-exact body, stripped headers, the deadline and retries, the edits and re-signing, recorded in the event's `replays` with `via: \"job\"` and `jobId`. The set is fixed now: the captures matching at this moment, none captured later. The job runs in the background at `ratePerSecond` with at most `concurrency` sends in flight, survives restarts (a crash repeats at most the sends in flight), and with PostgreSQL runs on one instance and is read on every one. `dryRun: true` sends nothing and makes no job.",
            requestBody: { required: true, content: jsonBody(REPLAY_JOB_CREATE_SCHEMA, { filters: 'webhookId=wh_4f8Kq2xYbN0aLm3ZpR7sT&statusCode[gte]=500&timestamp[gte]=2026-11-27T00:00:00Z', url: 'https://example.com/hooks', ratePerSecond: 20 }) },
            responses: {
                '200': { description: 'A dry run: how many match, the first 5 in sending order, and the least time the job would take.', content: jsonBody(REPLAY_JOB_DRY_RUN_SCHEMA), headers: REQUEST_ID },
                '202': { description: 'The job, made and queued.', content: jsonBody(REPLAY_JOB_SCHEMA), headers: LOCATION },
                '400': REFUSED,
                ...COMMON,
            },
        },
        get: {
            tags: ['Replay'],
            operationId: 'listReplayJobs',
            summary: 'List bulk replay jobs',
            description: 'The latest 100 jobs, newest first.',
            responses: { '200': { description: 'The jobs.', content: jsonBody(REPLAY_JOB_LIST_SCHEMA), headers: REQUEST_ID }, ...COMMON },
        },
    },
    '/replay-jobs/{id}': {
        get: {
            tags: ['Replay'],
            operationId: 'getReplayJob',
            summary: 'One bulk replay job and its progress',
            parameters: [ID],
            responses: { '200': THE_JOB, '404': UNKNOWN, ...COMMON },
        },
        delete: {
            tags: ['Replay'],
            operationId: 'cancelReplayJob',
            summary: 'Cancel a bulk replay job',
            description: 'Nothing more is sent. A queued job is `cancelled` at once (200); a running one gets `cancelRequested` (202) and turns `cancelled` once its sends in flight have ended. A job that has ended is answered as it is (200).',
            parameters: [ID],
            responses: {
                '200': { description: 'The job, ended.', content: jsonBody(REPLAY_JOB_SCHEMA), headers: REQUEST_ID },
                '202': { description: 'The job, stopping.', content: jsonBody(REPLAY_JOB_SCHEMA), headers: REQUEST_ID },
                '404': UNKNOWN,
                ...COMMON,
            },
        },
    },
    '/replay-jobs/{id}/retry': {
        post: {
            tags: ['Replay'],
            operationId: 'retryReplayJob',
            summary: 'Replay again the captures a job failed to deliver',
            description: 'A new job (`retryOf`) over the captures whose send failed in this one, in the same order, with its settings; the optional body changes the target or the pace. The job must have ended.',
            parameters: [ID],
            requestBody: { required: false, content: jsonBody(REPLAY_JOB_RETRY_SCHEMA) },
            responses: {
                '202': { description: 'The new job.', content: jsonBody(REPLAY_JOB_SCHEMA), headers: LOCATION },
                '400': REFUSED,
                '404': UNKNOWN,
                '409': { description: 'The job is still queued or running, or none of its sends failed.', content: jsonBody(ERROR_SCHEMA) },
                ...COMMON,
            },
        },
    },
    '/replay-jobs/{id}/stream': {
        get: {
            tags: ['Replay'],
            operationId: 'streamReplayJob',
            summary: 'Live progress of a bulk replay job (Server-Sent Events)',
            description:
                'A `text/event-stream`: `: connected`, then a `data:` frame with the job (as `GET /replay-jobs/{id}` answers it) at once and after each change, at most about four a second, and `: heartbeat` every 15 s. It ends after the frame of the final state (`done`, `cancelled` or `failed`). No `event:` field is used, as on `/log-stream`. Any instance streams a job another one runs.',
            parameters: [ID],
            responses: {
                '200': {
                    description: 'The stream of the job.',
                    content: { 'text/event-stream': { schema: { type: 'string' }, example: ': connected\n\ndata: {"id":"rj_V1StGXR8Z5jdHi6BmyTaq","state":"running","total":1200,"sent":40}\n\n' } },
                },
                '404': UNKNOWN,
                '503': { description: 'The maximum number of job streams (100) is open.', content: jsonBody(ERROR_SCHEMA) },
                ...COMMON,
            },
        },
    },
};
