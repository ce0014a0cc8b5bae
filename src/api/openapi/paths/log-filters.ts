// The query parameters of GET /logs (and DELETE /logs and GET /log-stream, which take the same
// filters). The range and JSON-column forms are written once per field, as the service parses them
// (src/filters).
import type { Parameter, SchemaObject } from '../types.js';

/** An optional query parameter. */
function query(name: string, description: string, schema: SchemaObject, example?: unknown): Parameter {
    return example === undefined ? { name, in: 'query', required: false, description, schema } : { name, in: 'query', required: false, description, schema, example };
}

const OPERATORS = { gte: 'greater than or equal to', gt: 'greater than', lte: 'less than or equal to', lt: 'less than' } as const;

/** `field[gte]`, `field[gt]`, `field[lte]` and `field[lt]`; `unit` follows "this value" when given. */
function range(field: string, schema: SchemaObject, unit = ''): Parameter[] {
    return Object.entries(OPERATORS).map(([op, words]) =>
        query(
            `${field}[${op}]`,
            `Range filter: ${field} ${words} this value${unit}. Combine operators for a closed range, e.g. \`${field}[gte]=…&${field}[lt]=…\`.`,
            schema,
        ),
    );
}

/** A JSON column: a substring without brackets, one key with them. */
function jsonColumn(name: string, what: string, note = ''): Parameter {
    return query(
        name,
        `Without brackets: substring search over the serialized ${what} JSON (ASCII letters match in either case, as for every substring filter). With brackets it matches one key: \`${name}[<key>]=<value>\`${note}. Bracket forms can be repeated for several keys; they are not listed as separate parameters because the key is free.`,
        { type: 'string' },
    );
}

const STRING = { type: 'string' } as const;
const INTEGER = { type: 'integer' } as const;
const NUMBER = { type: 'number' } as const;
const DATE_TIME = { type: 'string', format: 'date-time' } as const;

/** The filters: GET /logs, DELETE /logs and GET /log-stream take them alike. */
export const FILTER_PARAMETERS: readonly Parameter[] = [
    query('id', 'Exact log entry ID.', STRING),
    query('webhookId', 'Exact webhook ID.', STRING),
    query('requestUrl', 'Partial (substring) match on the stored request URL.', STRING),
    query('method', 'Exact HTTP method; normalized to uppercase, so `post` matches `POST`.', STRING, 'POST'),
    query('statusCode', 'Exact status code. Range form: `statusCode[gte]`, `statusCode[gt]`, `statusCode[lte]`, `statusCode[lt]`.', INTEGER),
    ...range('statusCode', INTEGER),
    query('contentType', 'Partial (substring) match on the stored content type.', STRING),
    query('requestId', 'Exact request ID.', STRING),
    query('remoteIp', 'Exact source IP, or a CIDR block (IPv4 or IPv6) that the source IP must fall in.', STRING, '203.0.113.0/24'),
    query('userAgent', 'Partial (substring) match on the user agent.', STRING),
    query('signatureValid', '`true` or `false`: result of signature verification.', { type: 'boolean' }),
    query('signatureProvider', 'Exact signature provider name.', STRING, 'stripe'),
    query('processingTime', 'Exact processing time in milliseconds. Range form: `processingTime[gte|gt|lte|lt]`.', NUMBER),
    ...range('processingTime', NUMBER, ' (milliseconds)'),
    query('size', 'Exact payload size in bytes. Range form: `size[gte|gt|lte|lt]`.', INTEGER),
    ...range('size', INTEGER, ' (bytes)'),
    query('timestamp', 'Exact capture time, ISO 8601. Range form: `timestamp[gte|gt|lte|lt]`.', DATE_TIME),
    ...range('timestamp', DATE_TIME, ' (ISO 8601)'),
    query('startTime', 'Same as `timestamp[gte]`.', DATE_TIME),
    query('endTime', 'Same as `timestamp[lte]`.', DATE_TIME),
    query('answeredBy', "Exact name of the rule (the webhook's `response.rules`) that answered the request.", STRING, 'voided'),
    jsonColumn('headers', 'request headers'),
    jsonColumn('query', 'query string'),
    jsonColumn('body', 'request body', '; nested keys use dot notation, e.g. `body[data.object.id]=evt_1`'),
    jsonColumn('responseHeaders', 'response headers'),
    jsonColumn('responseBody', 'response body'),
    query(
        'form',
        "A form body's fields (`multipart/form-data`, `application/x-www-form-urlencoded`; see `Form`). Without brackets: substring search over the fields as JSON, names and values (ASCII letters match in either case). With brackets it matches one field: `form[<name>]=<value>` is exact and matches when any of the field's values equals it; the name is taken whole, brackets and dots included (`form[tags[]]=a`, `form[user.email]=…`). Bodies that are no form never match.",
        STRING,
        'invoice',
    ),
    query('hasFiles', '`true`: form bodies with at least one file (`form.files`). `false`: every other capture, including bodies that are no form.', { type: 'boolean' }),
];

/** Paging and order: GET /logs only. */
export const PAGE_PARAMETERS: readonly Parameter[] = [
    query('limit', 'Maximum number of items to return. Default 10000; invalid or smaller values are clamped to at least 1.', {
        type: 'integer',
        default: 10000,
        minimum: 1,
    }),
    query('offset', 'Zero-based number of items to skip (offset mode). Ignored when `cursor` is present.', { type: 'integer', default: 0, minimum: 0 }),
    {
        ...query(
            'cursor',
            'Keyset pagination. Pass `nextCursor` from the previous response; an empty `cursor=` starts cursor mode at the first page. When present it takes precedence over `offset`, and the response carries `nextCursor` instead of `total`/`nextOffset`. The value is opaque.',
            STRING,
        ),
        allowEmptyValue: true,
    },
    query(
        'sort',
        'Comma-separated `<field>:<asc|desc>` rules, direction case-insensitive, applied in order. Sortable fields: id, statusCode, method, size, timestamp, remoteIp, processingTime, webhookId, userAgent, requestUrl, contentType, requestId, signatureValid, signatureProvider, signatureError.',
        { type: 'string', default: 'timestamp:DESC' },
        'statusCode:desc,timestamp:asc',
    ),
];
