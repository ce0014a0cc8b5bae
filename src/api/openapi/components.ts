// The shared parts of the OpenAPI document besides the schemas: security schemes, parameters, headers,
// request bodies and responses. Each is written once here and referenced by identity (emit.ts).
import { ERROR_SCHEMA, INGEST_RATE_LIMIT_SCHEMA, PAYLOAD_TOO_LARGE_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../errors.js';
import { STATUS_OVERRIDE_BODY_SCHEMA } from '../webhook.js';
import type { Header, MediaType, Parameter, RequestBody, Response, SchemaObject } from './types.js';

/** A JSON body of `schema`, with an example when given. */
export function jsonBody(schema: SchemaObject, example?: unknown): Record<string, MediaType> {
    return { 'application/json': example === undefined ? { schema } : { schema, example } };
}

/** How the `authKey` is sent. */
export const SECURITY_SCHEMES = {
    bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description:
            'The `authKey` input as `Authorization: Bearer <key>`. Only enforced when `authKey` is set. Not on the Apify Standby URL when the header already carries the Apify API token: use `?key=` there.',
    },
    apiKeyQuery: {
        type: 'apiKey',
        in: 'query',
        name: 'key',
        description:
            'The `authKey` input as the `key` query parameter. Only enforced when `authKey` is set. The way to send it on the Apify Standby URL (whose `Authorization` header carries the Apify API token), and for browsers and senders that cannot set headers.',
    },
} as const;

/** The parameters of the ingest route. */
export const PARAMETERS = {
    WebhookId: {
        name: 'id',
        in: 'path',
        required: true,
        description: 'Webhook ID of an active, unexpired webhook (`wh_` followed by 21 characters).',
        schema: { type: 'string' },
        example: 'wh_4f8Kq2xYbN0aLm3ZpR7sT',
    },
    StatusOverride: {
        name: '__status',
        in: 'query',
        required: false,
        description: 'Answer with this status instead of `defaultResponseCode`, for this request only. Must be a valid HTTP status integer.',
        schema: { type: 'integer', minimum: 100, maximum: 599 },
        example: 503,
    },
} satisfies Record<string, Parameter>;

/** The headers answers carry. */
export const HEADERS = {
    'X-Request-Id': { description: 'Identifier of this request.', schema: { type: 'string' } },
    'X-RateLimit-Limit': { description: 'Maximum requests in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
} satisfies Record<string, Header>;

/** The headers of every answer: the request id and the rate limit's state. */
export const ANSWER_HEADERS: Record<string, Header> = {
    'X-Request-Id': HEADERS['X-Request-Id'],
    'X-RateLimit-Limit': HEADERS['X-RateLimit-Limit'],
    'X-RateLimit-Remaining': HEADERS['X-RateLimit-Remaining'],
    'X-RateLimit-Reset': HEADERS['X-RateLimit-Reset'],
};

/** The headers of a 429: those of every answer, and Retry-After. */
export const RETRY_HEADERS: Record<string, Header> = { ...ANSWER_HEADERS, 'Retry-After': HEADERS['Retry-After'] };

/** What a sender may send to a webhook. */
export const REQUEST_BODIES = {
    AnyPayload: {
        required: false,
        description: 'Any payload, up to `maxPayloadSize`. Stored byte-exact; JSON is also parsed when `enableJSONParsing` is on.',
        content: {
            'application/json': { schema: {}, example: { event: 'invoice.paid', data: { id: 'in_123', amount: 4200 } } },
            'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: true } },
            'text/plain': { schema: { type: 'string' } },
            'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
        },
    },
} satisfies Record<string, RequestBody>;

/** The answers several routes share. */
export const RESPONSES = {
    IngestOk: {
        description: 'Captured. Status, body and headers are the configured defaults, or what `__status` or the custom script set.',
        content: { 'text/plain': { schema: { type: 'string' }, example: 'OK' }, '*/*': { schema: {} } },
        headers: ANSWER_HEADERS,
    },
    IngestBadRequest: {
        description: 'The JSON payload failed `jsonSchema` (stored with status 400), or `__status=400` with the default body.',
        content: jsonBody({ oneOf: [VALIDATION_ERROR_SCHEMA, STATUS_OVERRIDE_BODY_SCHEMA] }),
    },
    IngestForbidden: {
        description: 'The source IP is not in `allowedIps`. Not stored.',
        content: jsonBody(ERROR_SCHEMA, { status: 403, error: 'Forbidden', message: 'Source IP is not allowed to send to this webhook' }),
    },
    IngestNotFound: {
        description: 'Unknown or expired webhook. Not stored.',
        content: jsonBody(ERROR_SCHEMA, { status: 404, error: 'Not Found', message: 'Webhook not found or expired' }),
    },
    IngestPayloadTooLarge: {
        description: 'The payload is larger than `maxPayloadSize`. Stored with status 413.',
        content: jsonBody(PAYLOAD_TOO_LARGE_SCHEMA),
    },
    IngestLoop: {
        description: "The request carries this instance's own forwarding marker: a forwarding loop. Stored with status 422.",
        content: jsonBody(ERROR_SCHEMA, { status: 422, error: 'Unprocessable Entity', message: 'Forwarding loop detected' }),
    },
    IngestOtherStatus: {
        description:
            'Any other status chosen with `__status`, `defaultResponseCode` or the custom script. For a status of 400 or above with the default body still in place, the body is the JSON below; otherwise it is the configured body.',
        content: { ...jsonBody(STATUS_OVERRIDE_BODY_SCHEMA), '*/*': { schema: {} } },
    },
    Unauthorized: {
        description: 'Missing or invalid auth key (only when `authKey` is set).',
        content: jsonBody(ERROR_SCHEMA, { status: 401, error: 'Unauthorized', message: 'Missing or invalid authentication key' }),
    },
    TooManyRequests: {
        description: 'Per-IP limit of the management and probe routes exceeded.',
        content: jsonBody(ERROR_SCHEMA, { status: 429, error: 'Too Many Requests', message: 'Max 60 requests per 60s' }),
        headers: RETRY_HEADERS,
    },
    IngestTooManyRequests: {
        description: 'Per-webhook ingest limit exceeded. Not stored.',
        content: jsonBody(INGEST_RATE_LIMIT_SCHEMA, {
            status: 429,
            error: 'Too Many Requests',
            message: 'Max 10000 requests per minute per webhook',
            retryAfterSeconds: 60,
        }),
        headers: RETRY_HEADERS,
    },
    NotFound: {
        description: 'Not found, or the owning webhook has expired.',
        content: jsonBody(ERROR_SCHEMA, { status: 404, error: 'Not Found', message: 'Log entry not found' }),
    },
    InternalError: {
        description: 'Unexpected failure. The body carries `requestId`, never a stack trace.',
        content: jsonBody(ERROR_SCHEMA, { status: 500, error: 'Internal Server Error', message: 'Internal error', requestId: 'Xk3b9Q0pLw2Rt7Yv1Zs4M' }),
    },
} satisfies Record<string, Response>;
