import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { BadRequestError, type ErrorDetail } from '../errors.js';
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

const ajv = new Ajv({ allErrors: true, strict: false, logger: false });
const validators = { create: ajv.compile(CREATE_SCHEMA), patch: ajv.compile(PATCH_SCHEMA) };

/** A validated POST or PATCH body. */
export interface WebhookChange {
    name?: string | null;
    retentionHours?: number;
    response?: ResponseSpec | null;
}

/** Validates a POST (`create`) or PATCH (`patch`) body; throws 400 with `details` listing every problem. */
export function parseWebhookChange(kind: keyof typeof validators, body: unknown): WebhookChange {
    const validate: ValidateFunction = validators[kind];
    if (validate(body)) return body as WebhookChange;
    const details = (validate.errors ?? []).map(detailOf);
    throw new BadRequestError('The request body does not match the webhook schema', { details });
}

function detailOf(error: ErrorObject): ErrorDetail {
    const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'additionalProperties') {
        const field = String((error.params as { additionalProperty: string }).additionalProperty);
        return { path: base ? `${base}.${field}` : field, message: 'is not a known field' };
    }
    return { path: base || '(body)', message: error.message ?? 'is invalid' };
}
