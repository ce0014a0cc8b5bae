// The answers of POST /replay/:webhookId/:itemId.
import type { Shape } from './schema.js';

/** The answer of a replay the target answered, whatever its status (component ReplayResult). */
export const REPLAY_RESULT_SCHEMA = {
    type: 'object',
    required: ['status', 'targetUrl', 'targetResponseCode', 'targetResponseBody', 'resigned'],
    properties: {
        status: { type: 'string', enum: ['replayed'] },
        targetUrl: { type: 'string', format: 'uri', example: 'https://example.com/hooks/test' },
        targetResponseCode: { type: 'integer', example: 200 },
        targetResponseBody: { type: 'string', example: '{"received":true}' },
        strippedHeaders: {
            type: 'array',
            items: { type: 'string' },
            description: 'Names of the headers removed before sending; present only when some were removed.',
            example: ['authorization', 'cookie'],
        },
        resigned: { type: 'boolean', description: "Whether the body was signed anew with the run's signature secret (`resign`)." },
    },
} as const;

/** The success answer of a replay. */
export type ReplayResult = Shape<typeof REPLAY_RESULT_SCHEMA>;

/** A replay that failed (component ReplayError). */
export const REPLAY_ERROR_SCHEMA = {
    type: 'object',
    required: ['error'],
    properties: {
        status: { type: 'integer' },
        error: { type: 'string' },
        message: { type: 'string' },
        code: { type: 'string', description: 'Low-level error code of the last attempt, when available.', example: 'ECONNABORTED' },
    },
    additionalProperties: true,
} as const;

/** The answer of a replay that failed. */
export type ReplayError = Shape<typeof REPLAY_ERROR_SCHEMA>;
