// The body of every error answer, and the `details` a refused body lists (DECISIONS.md: 400 schema).
import type { Shape } from './schema.js';

/** `{status, error, message}` plus route-specific fields (component Error). */
export const ERROR_SCHEMA = {
    type: 'object',
    required: ['status', 'error', 'message'],
    properties: {
        status: { type: 'integer', description: 'HTTP status code.', example: 404 },
        error: { type: 'string', description: 'Reason phrase of the status.', example: 'Not Found' },
        message: { type: 'string', description: 'What went wrong.' },
        requestId: { type: 'string', description: 'Present on 5xx answers.' },
    },
    additionalProperties: true,
} as const;

/** The body of an error answer (its route-specific fields left out). */
export type ErrorBody = Shape<typeof ERROR_SCHEMA>;

/** One problem in a refused request. */
export const ERROR_DETAIL_SCHEMA = {
    type: 'object',
    required: ['path', 'message'],
    properties: { path: { type: 'string', example: '/amount' }, message: { type: 'string', example: 'must be number' } },
} as const;

/** One problem found in a request, as a 400 lists it under `details`. */
export type ErrorDetail = Shape<typeof ERROR_DETAIL_SCHEMA>;

/** A 400 that lists the problems found (component SchemaValidationError). */
export const VALIDATION_ERROR_SCHEMA = {
    allOf: [
        ERROR_SCHEMA,
        {
            type: 'object',
            required: ['details'],
            properties: {
                details: { type: 'array', description: 'The problems found, at most 20 (`moreDetails` counts the rest).', items: ERROR_DETAIL_SCHEMA },
                moreDetails: {
                    type: 'integer',
                    minimum: 1,
                    description: 'How many problems were found beyond the 20 listed; absent when all are listed.',
                },
            },
        },
    ],
    example: {
        status: 400,
        error: 'Bad Request',
        message: 'Payload does not match the JSON Schema',
        details: [{ path: '/amount', message: 'must be number' }],
    },
} as const;

/** The body of a 400 that lists problems. */
export type ValidationErrorBody = Shape<typeof VALIDATION_ERROR_SCHEMA>;

/** A 413 (component PayloadTooLargeError). */
export const PAYLOAD_TOO_LARGE_SCHEMA = {
    allOf: [
        ERROR_SCHEMA,
        {
            type: 'object',
            properties: {
                limit: { type: 'integer', description: 'The maximum accepted payload size in bytes (`maxPayloadSize`).', example: 10485760 },
            },
        },
    ],
    example: { status: 413, error: 'Payload Too Large', message: 'Payload exceeds the limit of 10485760 bytes', limit: 10485760 },
} as const;

/** A 429 on ingest (component IngestRateLimitError). */
export const INGEST_RATE_LIMIT_SCHEMA = {
    allOf: [ERROR_SCHEMA, { type: 'object', required: ['retryAfterSeconds'], properties: { retryAfterSeconds: { type: 'integer', example: 60 } } }],
} as const;
