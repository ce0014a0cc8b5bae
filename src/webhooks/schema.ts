import { validationError, type ErrorDetail } from '../errors.js';
import { answerHeaderDetails } from '../lib/answer-headers.js';
import { boundedValidator } from './bounded-validation.js';
import type { ResponseSpec } from '../storage/types.js';

/** The most answers a `sequence` may hold. */
export const MAX_SEQUENCE = 100;
/** `retentionHours` bounds of a webhook (DECISIONS.md: 1–168). */
export const MAX_RETENTION_HOURS = 168;

// Header names are HTTP tokens; values carry no control characters but tab (Node refuses them at send).
const HEADERS = {
    type: 'object',
    propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 256 },
    additionalProperties: { type: 'string', maxLength: 8192, pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$' },
    maxProperties: 50,
};
const STATUS = { type: 'integer', minimum: 200, maximum: 599 };
const BODY = { type: ['string', 'object', 'array'], maxLength: 1_048_576 };
const DELAY = { type: 'integer', minimum: 0, maximum: 10_000 };

/** One answer: what a sequence holds, and the base of a webhook's `response`. */
const ANSWER = { statusCode: STATUS, body: BODY, headers: HEADERS, delayMs: DELAY };

/** The `response` of a webhook (DECISIONS.md "Webhooks you manage"): one JSON Schema, each field optional. */
export const RESPONSE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    properties: {
        ...ANSWER,
        sequence: { type: 'array', minItems: 1, maxItems: MAX_SEQUENCE, items: { type: 'object', additionalProperties: false, properties: ANSWER } },
        failureRate: { type: 'number', minimum: 0, maximum: 1 },
        failureStatusCode: STATUS,
        retryAfterSeconds: { type: 'integer', minimum: 0, maximum: 86_400 },
    },
} as const;

const RETENTION = { type: 'integer', minimum: 1, maximum: MAX_RETENTION_HOURS };
const NAME = { type: ['string', 'null'], maxLength: 200 };

/** POST /webhooks body. */
export const CREATE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    properties: { name: NAME, retentionHours: RETENTION, response: { ...RESPONSE_SCHEMA, type: ['object', 'null'] } },
} as const;

/** PATCH /webhooks/:id body: at least one field. */
export const PATCH_SCHEMA = { ...CREATE_SCHEMA, minProperties: 1 } as const;

const validators = { create: boundedValidator(CREATE_SCHEMA), patch: boundedValidator(PATCH_SCHEMA) };

/** A validated POST or PATCH body. */
export interface WebhookChange {
    name?: string | null;
    retentionHours?: number;
    response?: ResponseSpec | null;
}

/**
 * Validates a POST (`create`) or PATCH (`patch`) body, parsed from `text` when given (a large one is
 * then measured in its text); throws 400 with `details` listing the problems (errors.ts validationError).
 */
export function parseWebhookChange(kind: keyof typeof validators, body: unknown, text?: string): WebhookChange {
    const problems = validators[kind](body, text);
    if (problems === undefined) {
        const refused = responseHeaderDetails((body as WebhookChange).response);
        if (refused.length === 0) return body as WebhookChange;
        throw validationError('The answer sets headers only the server may set', refused);
    }
    throw validationError('The request body does not match the webhook schema', problems.details, problems.total);
}

/** The refused header names of a `response`: its own headers' and each sequence step's. */
function responseHeaderDetails(response: ResponseSpec | null | undefined): ErrorDetail[] {
    const details = response?.headers ? answerHeaderDetails(response.headers, 'response.headers') : [];
    response?.sequence?.forEach((step, i) => {
        if (step.headers) details.push(...answerHeaderDetails(step.headers, `response.sequence.${i}.headers`));
    });
    return details;
}
