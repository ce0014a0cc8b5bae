// A webhook as the API shows it, and its `response`: the schema ajv validates a POST or PATCH body with
// is the one the OpenAPI document shows (DECISIONS.md "Webhooks you manage").
import { orNull, type Shape } from './schema.js';

/** The most answers a `sequence` may hold. */
export const MAX_SEQUENCE = 100;
/** `retentionHours` bounds of a webhook (DECISIONS.md: 1–168). */
export const MAX_RETENTION_HOURS = 168;

const STATUS = { type: 'integer', minimum: 200, maximum: 599 } as const;

/** One answer: a `sequence` step, and the base of a webhook's `response` (component WebhookAnswer). */
export const ANSWER_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    description: "One answer; unset fields fall back to the webhook's own, then to the run's defaults.",
    properties: {
        statusCode: { ...STATUS, description: 'Status of the answer; overrides `defaultResponseCode`.' },
        body: {
            description:
                'Body of the answer: a string as is, an object or array as JSON. Overrides `defaultResponseBody`. May hold placeholders (`{{request.body.PATH}}`, `{{json PATH}}`, `{{now}}` …): a template, at most 64 KB, checked when the webhook is saved.',
            type: ['string', 'object', 'array'],
            maxLength: 1_048_576,
        },
        headers: {
            type: 'object',
            description: 'Headers of the answer; override `defaultResponseHeaders`. Values may hold placeholders; CR, LF and NUL from a request are dropped.',
            // Names are HTTP tokens; values carry no control characters but tab (Node refuses them at send).
            propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", maxLength: 256 },
            additionalProperties: { type: 'string', maxLength: 8192, pattern: '^[\\t\\x20-\\x7e\\x80-\\xff]*$' },
            maxProperties: 50,
        },
        delayMs: {
            type: 'integer',
            minimum: 0,
            maximum: 10_000,
            description: 'Holds the answer after the capture is stored; overrides `responseDelayMs`.',
        },
    },
} as const;

/** The most rules a `response` may hold. */
export const MAX_RULES = 50;
/** The longest template (a body or header value holding `{{`), in UTF-8 bytes. */
export const MAX_TEMPLATE_BYTES = 65_536;

const WHEN_VALUE = { type: ['string', 'number', 'boolean'] } as const;

/** A rule: a request-side GET /logs query (`when`) and the answer it gives (component AnswerRule). */
export const RULE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['when', 'answer'],
    description: 'The first rule whose `when` matches the request gives the answer; a request no rule matches falls through to the sequence, failureRate and fixed answer.',
    properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: 'Shown as `answeredBy.name` on the capture, and filterable with `answeredBy=<name>`.' },
        when: {
            type: 'object',
            maxProperties: 32,
            description:
                'GET /logs parameters restricted to the request side: method, requestUrl, contentType, userAgent, remoteIp, size (and size[gte] …), headers, query, body and their keyed forms headers[name], query[name], body[path]. Same meaning, case rules and syntax as GET /logs; several keys must all match; `{}` matches every request. A list value repeats the parameter.',
            propertyNames: { maxLength: 256 },
            additionalProperties: { anyOf: [WHEN_VALUE, { type: 'array', items: WHEN_VALUE, maxItems: 32 }] },
            example: { method: 'POST', 'body[type]': 'invoice.voided' },
        },
        answer: ANSWER_SCHEMA,
    },
    example: { name: 'voided', when: { 'body[type]': 'invoice.voided' }, answer: { statusCode: 400, body: { error: 'voided {{request.body.data.id}}' } } },
} as const;

/** A simulated rate limit: 429 once the webhook has had `requests` requests in the last `perSeconds` seconds (component RateLimitSimulation). */
export const RATE_LIMIT_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    required: ['requests', 'perSeconds'],
    description:
        'Answers 429 with Retry-After and RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset once the webhook has answered `requests` requests in the last `perSeconds` seconds (a sliding window; the 429s do not count). Applied before rules; each running instance counts on its own.',
    properties: {
        requests: { type: 'integer', minimum: 1, maximum: 10_000 },
        perSeconds: { type: 'integer', minimum: 1, maximum: 86_400 },
    },
    example: { requests: 10, perSeconds: 60 },
} as const;

/** A webhook's own answer and fault injection, each field optional (component WebhookResponse). */
export const RESPONSE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    description: "A webhook's own answer and fault injection; every field is optional. `?__status=` still overrides the status per request.",
    properties: {
        ...ANSWER_SCHEMA.properties,
        sequence: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_SEQUENCE,
            items: ANSWER_SCHEMA,
            description:
                'Answers taken in order by the webhook\'s requests, counted from when the sequence was set; the last one stays (`500, 500, 200` = down twice, then healthy). Counted per instance.',
        },
        failureRate: { type: 'number', minimum: 0, maximum: 1, description: 'The chance that a request gets `failureStatusCode` instead of its answer.' },
        failureStatusCode: { ...STATUS, default: 503 },
        retryAfterSeconds: {
            type: 'integer',
            minimum: 0,
            maximum: 86_400,
            description: 'Adds `Retry-After` to a 429 or 503 answer (from a failure, the sequence or the status).',
        },
        rules: {
            type: 'array',
            maxItems: MAX_RULES,
            items: RULE_SCHEMA,
            description: 'Answers by rule, checked in order before the sequence, failureRate and fixed answer. Each unset answer field falls back to this response\'s own, then to the run\'s defaults.',
        },
        rateLimit: RATE_LIMIT_SCHEMA,
    },
    example: { sequence: [{ statusCode: 500 }, { statusCode: 500 }, { statusCode: 200, body: 'ok' }], retryAfterSeconds: 5 },
} as const;

/** One answer of a webhook (a `sequence` step, a rule's, or the base of its `response`). */
export type AnswerSpec = Shape<typeof ANSWER_SCHEMA>;
/** One rule of a webhook's `response`. */
export type RuleSpec = Shape<typeof RULE_SCHEMA>;
/** A webhook's simulated rate limit. */
export type RateLimitSpec = Shape<typeof RATE_LIMIT_SCHEMA>;
/** A webhook's own answer and fault injection. */
export type ResponseSpec = Shape<typeof RESPONSE_SCHEMA>;

const NAME = { type: ['string', 'null'], maxLength: 200 } as const;
const RETENTION = {
    type: 'integer',
    minimum: 1,
    maximum: MAX_RETENTION_HOURS,
    description: "Lifetime from now, in hours (default: the run's `retentionHours`).",
} as const;

/** POST /webhooks body (component WebhookCreate). */
export const WEBHOOK_CREATE_SCHEMA = {
    type: 'object',
    additionalProperties: false,
    properties: { name: NAME, retentionHours: RETENTION, response: orNull(RESPONSE_SCHEMA, 'Replaced whole; `null` clears it.') },
} as const;

/** PATCH /webhooks/:id body: at least one field (component WebhookPatch). */
export const WEBHOOK_PATCH_SCHEMA = { ...WEBHOOK_CREATE_SCHEMA, minProperties: 1 } as const;

/** A validated POST or PATCH body. */
export type WebhookChange = Shape<typeof WEBHOOK_CREATE_SCHEMA>;

const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** A webhook as the management routes answer it (component ManagedWebhook). */
export const MANAGED_WEBHOOK_SCHEMA = {
    type: 'object',
    required: ['id', 'url', 'name', 'createdAt', 'expiresAt', 'response', 'count'],
    properties: {
        id: { type: 'string', example: 'wh_4f8Kq2xYbN0aLm3ZpR7sT' },
        url: { type: 'string', format: 'uri', description: 'Absolute URL senders call.' },
        name: { type: ['string', 'null'] },
        createdAt: DATE_TIME,
        expiresAt: DATE_TIME,
        response: orNull(RESPONSE_SCHEMA, "`null`: the run's defaults."),
        count: { type: 'integer', description: 'Captures it holds.' },
    },
} as const;

/** A webhook as GET /webhooks lists it. */
export type ManagedWebhook = Shape<typeof MANAGED_WEBHOOK_SCHEMA>;

/** An active webhook as GET /info lists it (component Webhook). */
export const ACTIVE_WEBHOOK_SCHEMA = {
    type: 'object',
    required: ['id', 'expiresAt'],
    properties: { id: { type: 'string', example: 'wh_4f8Kq2xYbN0aLm3ZpR7sT' }, expiresAt: DATE_TIME },
} as const;

/** The body of an ingest answer whose status is 400 or above while the default body is configured (component StatusOverrideBody). */
export const STATUS_OVERRIDE_BODY_SCHEMA = {
    type: 'object',
    description: 'Body sent when the effective status is 400 or above and the default success body is still configured.',
    required: ['message', 'webhookId'],
    properties: {
        message: { type: 'string', example: 'Webhook received with status 503' },
        webhookId: { type: 'string', example: 'wh_4f8Kq2xYbN0aLm3ZpR7sT' },
    },
} as const;
