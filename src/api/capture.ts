// A captured event as the API shows it: a list item of GET /logs, the full entry of GET /logs/:logId
// (and of /log-stream), with its replays and forwarding outcome, and the pages of GET /logs.
import type { Shape } from './schema.js';

const DATE_TIME = { type: 'string', format: 'date-time' } as const;
const NULLABLE_STRING = { type: ['string', 'null'] } as const;

/** One replay of an event that reached delivery, as GET /logs/:logId lists it under `replays` (component ReplayRecord). */
export const REPLAY_RECORD_SCHEMA = {
    type: 'object',
    description: 'One replay that reached delivery.',
    required: ['at', 'targetUrl', 'targetResponseCode', 'attempts', 'error', 'resigned'],
    properties: {
        at: { ...DATE_TIME, description: 'When the replay finished.' },
        targetUrl: { type: 'string', format: 'uri' },
        targetResponseCode: { type: ['integer', 'null'], description: "The target's status; null when no attempt got an answer." },
        attempts: { type: 'integer' },
        error: { type: ['string', 'null'], description: 'Why no answer came (timeout, network error); null when one did.' },
        resigned: { type: 'boolean', description: "Whether the body was signed anew with the run's signature secret." },
        via: { type: 'string', enum: ['replay', 'listen', 'job'], description: 'What sent it: `POST /replay`, the `listen` command, or a bulk replay job. Absent on records kept before it existed.' },
        jobId: { type: 'string', description: 'The bulk replay job that sent it (`via: "job"`).' },
        durationMs: { type: 'number', description: 'How long the delivery took, from the first byte sent to the answer read (`via: "listen"`).' },
    },
} as const;

/** One replay of an event that reached delivery. */
export type ReplayRecord = Shape<typeof REPLAY_RECORD_SCHEMA>;

/** What became of forwarding an event to `forwardUrl` (component ForwardOutcome). */
export const FORWARD_OUTCOME_SCHEMA = {
    type: 'object',
    description: 'What became of forwarding the event to `forwardUrl`; present when `forwardUrl` was set at capture.',
    required: ['status', 'url', 'statusCode', 'attempts', 'error', 'at'],
    properties: {
        status: {
            type: 'string',
            enum: ['pending', 'delivered', 'failed', 'dropped'],
            description: '`delivered`: the target answered (any status); `failed`: no attempt got an answer; `dropped`: never sent.',
        },
        url: { type: 'string', format: 'uri' },
        statusCode: { type: ['integer', 'null'] },
        attempts: { type: 'integer' },
        error: NULLABLE_STRING,
        at: { ...DATE_TIME, description: 'When this outcome was reached.' },
    },
} as const;

/** What became of forwarding an event to `forwardUrl`, as GET /logs/:logId shows it under `forward`. */
export type ForwardOutcome = Shape<typeof FORWARD_OUTCOME_SCHEMA>;

/** The rule of the webhook's `response.rules` that answered the request (component AnsweredBy). */
export const ANSWERED_BY_SCHEMA = {
    type: 'object',
    description: "The rule of the webhook's `response.rules` that answered; absent when no rule did. Filter with `answeredBy=<name>`.",
    required: ['index', 'name'],
    properties: { index: { type: 'integer', description: 'Its position in `rules`, from 0.' }, name: { type: ['string', 'null'] } },
} as const;

/** Which rule answered a request. */
export type AnsweredBy = Shape<typeof ANSWERED_BY_SCHEMA>;

/** One file of a form (component FormFile): a part with a filename, or a field over 1 MB. */
export const FORM_FILE_SCHEMA = {
    type: 'object',
    description: 'A file of the form, served byte-exact by `GET /logs/{logId}/files/{index}`.',
    required: ['index', 'field', 'filename', 'contentType', 'size', 'sha256'],
    properties: {
        index: { type: 'integer', description: 'Its position among the parts of the body, from 0 (the `index` of the files route).' },
        field: { type: 'string', description: 'The form field it was sent under.' },
        filename: { type: ['string', 'null'], description: 'The filename the sender gave; null for a field described as a file because it is over 1 MB.' },
        contentType: { type: 'string', description: "The part's media type." },
        size: { type: 'integer', description: 'Bytes.' },
        sha256: { type: 'string', description: 'SHA-256 of the bytes, hex.' },
    },
} as const;

/** One file of a form. */
export type FormFile = Shape<typeof FORM_FILE_SCHEMA>;

/** What a form body holds (component Form): `multipart/form-data` and `application/x-www-form-urlencoded`. */
export const FORM_SCHEMA = {
    type: 'object',
    description:
        'A description of a form body (`multipart/form-data` or `application/x-www-form-urlencoded`); the body itself stays as received (`/payload`). At most 1,000 parts are described. Filter with `form=<text>`, `form[<field>]=<value>` and `hasFiles=true|false`.',
    required: ['fields', 'files'],
    properties: {
        fields: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string' } },
            description: 'Each field name with its values in the order sent (a field sent twice has two). Credential names hold `[REDACTED]` when masking is on.',
        },
        files: { type: 'array', items: FORM_FILE_SCHEMA },
    },
} as const;

/** A form body, described. */
export type Form = Shape<typeof FORM_SCHEMA>;

// The fields a list item and a full entry share, in the order the entry shows them.
const SUMMARY_FIELDS = {
    id: { type: 'string' },
    webhookId: { type: 'string' },
    timestamp: DATE_TIME,
    method: { type: 'string', example: 'POST' },
    statusCode: { type: 'integer', example: 200 },
    size: { type: 'integer', description: 'Payload size in bytes.' },
    processingTime: { type: 'number', description: 'Milliseconds, response delay excluded.' },
    requestId: { type: 'string' },
    requestUrl: { type: 'string', example: '/webhook/wh_4f8Kq2xYbN0aLm3ZpR7sT' },
    contentType: { type: 'string', example: 'application/json' },
} as const;
const SIGNATURE_FIELDS = { signatureValid: { type: ['boolean', 'null'] }, signatureProvider: NULLABLE_STRING } as const;
const SUMMARY_REQUIRED = [...(Object.keys(SUMMARY_FIELDS) as (keyof typeof SUMMARY_FIELDS)[]), 'signatureValid', 'signatureProvider'] as const;

/** A list item of GET /logs (component LogSummary). */
export const LOG_SUMMARY_SCHEMA = {
    type: 'object',
    required: [...SUMMARY_REQUIRED, 'detailUrl'],
    properties: {
        ...SUMMARY_FIELDS,
        ...SIGNATURE_FIELDS,
        detailUrl: { type: 'string', format: 'uri', description: 'Absolute URL of `/logs/{logId}`.' },
    },
} as const;

/** A list item of GET /logs. */
export type LogItem = Shape<typeof LOG_SUMMARY_SCHEMA>;
/** The summary fields of an event, as storage lists them (GET /logs adds `detailUrl`). */
export type LogSummary = Omit<LogItem, 'detailUrl'>;

const OBJECT = { type: 'object', additionalProperties: true } as const;

/** A captured event (component LogEntry): GET /logs/:logId, and each event of /log-stream. */
export const LOG_ENTRY_SCHEMA = {
    type: 'object',
    description: 'A captured event. With `fields`, only the requested properties are present.',
    required: [...SUMMARY_REQUIRED, 'remoteIp', 'userAgent', 'headers', 'query', 'body', 'responseHeaders', 'responseBody', 'signatureError'],
    properties: {
        ...SUMMARY_FIELDS,
        remoteIp: { type: 'string', example: '203.0.113.7' },
        userAgent: { type: 'string' },
        headers: { ...OBJECT, description: 'Request headers; credential headers hold `[REDACTED]` when masking is on.' },
        query: OBJECT,
        body: {
            description:
                'Object when parsed JSON, string when text, base64 string when binary (`bodyEncoding: "base64"`), `{offloaded: true, key, size}` when offloaded, null when empty.',
        },
        bodyEncoding: { type: 'string', enum: ['base64'], description: 'Present only for binary bodies.' },
        rawBody: {
            type: 'string',
            description:
                'Only in GET /log-stream frames with `rawBodies=true`: the bytes GET /logs/{logId}/payload serves, base64. Absent when that route must be read: a body over 64 KB, or one a custom script replaced (the payload is the original).',
        },
        responseHeaders: OBJECT,
        responseBody: { description: 'String or object.' },
        ...SIGNATURE_FIELDS,
        signatureError: NULLABLE_STRING,
        meta: { ...OBJECT, description: 'Extra facts recorded on the event (forwarding outcome, rejection reason, …).' },
        answeredBy: ANSWERED_BY_SCHEMA,
        form: FORM_SCHEMA,
        formError: { type: 'string', description: 'Why the form could not be described in full (no boundary, truncated, a bad part header, more than 1,000 parts, …); absent when it was.' },
        replays: { type: 'array', items: REPLAY_RECORD_SCHEMA, description: 'Replays of this event, oldest first (the latest 50); `[]` when never replayed.' },
        forward: FORWARD_OUTCOME_SCHEMA,
    },
} as const;

/** A captured event as the API returns it (GET /logs/:logId, /log-stream). */
export type LogEntry = Shape<typeof LOG_ENTRY_SCHEMA>;

/** One sort rule as GET /logs echoes it (component SortRule). */
export const SORT_RULE_SCHEMA = {
    type: 'object',
    required: ['field', 'dir'],
    properties: { field: { type: 'string', example: 'timestamp' }, dir: { type: 'string', example: 'DESC' } },
} as const;

/** The query as GET /logs echoes it (component LogFilters). */
export const LOG_FILTERS_SCHEMA = {
    type: 'object',
    description: 'Echo of the query: limit, offset, sort, and each filter that was supplied.',
    properties: { limit: { type: 'integer' }, offset: { type: 'integer' }, sort: { type: 'array', items: SORT_RULE_SCHEMA } },
    additionalProperties: true,
} as const;

const COUNT = { type: 'integer', description: 'Number of items in this page.' } as const;
const ITEMS = { type: 'array', items: LOG_SUMMARY_SCHEMA } as const;
const NEXT_PAGE_URL = { type: ['string', 'null'], format: 'uri', description: 'null when nothing follows.' } as const;

/** A page of GET /logs in offset mode (component LogPageOffset). */
export const LOG_PAGE_OFFSET_SCHEMA = {
    type: 'object',
    title: 'Offset mode',
    required: ['filters', 'count', 'total', 'items', 'nextOffset', 'nextPageUrl'],
    properties: {
        filters: LOG_FILTERS_SCHEMA,
        count: COUNT,
        total: { type: 'integer', description: 'Number of events matching the filters.' },
        items: ITEMS,
        nextOffset: { type: ['integer', 'null'], description: 'null when nothing follows.' },
        nextPageUrl: NEXT_PAGE_URL,
    },
} as const;

/** A page of GET /logs in cursor mode (component LogPageCursor). */
export const LOG_PAGE_CURSOR_SCHEMA = {
    type: 'object',
    title: 'Cursor mode',
    required: ['count', 'items', 'nextCursor', 'nextPageUrl'],
    properties: {
        filters: LOG_FILTERS_SCHEMA,
        count: COUNT,
        items: ITEMS,
        nextCursor: { type: ['string', 'null'], description: 'Opaque; pass as `cursor` for the next page. null when nothing follows.' },
        nextPageUrl: NEXT_PAGE_URL,
    },
} as const;

/** A page of GET /logs in offset mode. */
export type LogPageOffset = Shape<typeof LOG_PAGE_OFFSET_SCHEMA>;
/** A page of GET /logs in cursor mode. */
export type LogPageCursor = Shape<typeof LOG_PAGE_CURSOR_SCHEMA>;
