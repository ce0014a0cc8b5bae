// GET and DELETE /logs, /logs/{logId}, its payload and its form's files.
import { LOG_ENTRY_SCHEMA, LOG_PAGE_CURSOR_SCHEMA, LOG_PAGE_OFFSET_SCHEMA } from '../../capture.js';
import { ERROR_SCHEMA } from '../../errors.js';
import { ANSWER_HEADERS, HEADERS, RESPONSES } from '../components.js';
import type { Parameter, PathItems } from '../types.js';
import { FILTER_PARAMETERS, PAGE_PARAMETERS } from './log-filters.js';

const LOG_ID: Parameter = { name: 'logId', in: 'path', required: true, description: 'Log entry ID.', schema: { type: 'string' } };

/** The routes of captured events. */
export const LOGS_PATHS: PathItems = {
    '/logs': {
        get: {
            tags: ['Logs'],
            operationId: 'listLogs',
            summary: 'Query captured events',
            description: 'Filterable, sortable, paginated list of captured events, newest first by default. Filters combine with AND. Range filters use bracket notation with the operators `gte`, `gt`, `lte` and `lt`: `<field>[<op>]=<value>` (statusCode, processingTime, size, timestamp). The JSON columns (headers, query, body, responseHeaders, responseBody) do a free-text substring search without brackets and match one key with brackets: `headers[x-github-event]=push`, `body[data.object.id]=evt_1`. Form bodies are searched by their fields (`form=<text>`, `form[<field>]=<value>`) and by whether they carry files (`hasFiles=true|false`).\n\nTwo pagination modes: offset mode (default) returns `total`, `nextOffset` and `nextPageUrl`; cursor mode (any `cursor` parameter, even empty) returns `nextCursor` and `nextPageUrl` and skips the full count. Events of expired webhooks are not returned.',
            parameters: [...FILTER_PARAMETERS, ...PAGE_PARAMETERS],
            responses: {
                '200': {
                    description: 'One page of events. The shape depends on the pagination mode.',
                    content: { 'application/json': { schema: { oneOf: [LOG_PAGE_OFFSET_SCHEMA, LOG_PAGE_CURSOR_SCHEMA] } } },
                    headers: ANSWER_HEADERS,
                },
                '400': {
                    description: 'A parameter cannot be understood, e.g. an unknown sort field, a malformed cursor or an invalid range value.',
                    content: {
                        'application/json': {
                            schema: ERROR_SCHEMA,
                            example: { status: 400, error: 'Bad Request', message: 'Unknown sort field: colour' },
                        },
                    },
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
        delete: {
            tags: ['Logs'],
            operationId: 'deleteLogs',
            summary: 'Delete the captures matching filters',
            description: 'Deletes every capture matching the same filters as `GET /logs` (at least one is required), with payloads, replay history and forwarding entries, in small batches so capture is not stalled. On the platform, items already exported to the dataset stay there.',
            parameters: [...FILTER_PARAMETERS],
            responses: {
                '200': {
                    description: 'How many were deleted.',
                    content: {
                        'application/json': { schema: { type: 'object', required: ['deleted'], properties: { deleted: { type: 'integer' } } } },
                    },
                    headers: { 'X-Request-Id': HEADERS['X-Request-Id'] },
                },
                '400': {
                    description: 'No filter, or a filter `GET /logs` would refuse.',
                    content: { 'application/json': { schema: ERROR_SCHEMA } },
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
            },
        },
    },
    '/logs/{logId}': {
        get: {
            tags: ['Logs'],
            operationId: 'getLog',
            summary: 'Get one captured event',
            description: 'The full event. Large (offloaded) bodies appear as `{offloaded: true, key, size}`; fetch them with `/logs/{logId}/payload`. Returns 404 when the event does not exist or its webhook has expired, even though the stored row remains.',
            parameters: [
                LOG_ID,
                {
                    name: 'fields',
                    in: 'query',
                    required: false,
                    description: 'Comma-separated field names for a sparse result, e.g. `id,method,body`. `webhookId` is only included when listed.',
                    schema: { type: 'string' },
                    example: 'id,timestamp,method,statusCode,body',
                },
            ],
            responses: {
                '200': {
                    description: 'The event (or the requested fields of it).',
                    content: { 'application/json': { schema: LOG_ENTRY_SCHEMA } },
                    headers: ANSWER_HEADERS,
                },
                '401': RESPONSES.Unauthorized,
                '404': RESPONSES.NotFound,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
        delete: {
            tags: ['Logs'],
            operationId: 'deleteLog',
            summary: 'Delete one capture',
            description: 'The capture, its payload, its replay history and its forwarding backlog entry are deleted; it is gone from every route, HAR export and `Last-Event-ID` resume.',
            parameters: [LOG_ID],
            responses: {
                '204': { description: 'Deleted.' },
                '401': RESPONSES.Unauthorized,
                '404': {
                    description: 'Unknown capture, or its webhook has expired.',
                    content: { 'application/json': { schema: ERROR_SCHEMA } },
                },
                '429': RESPONSES.TooManyRequests,
            },
        },
    },
    '/logs/{logId}/payload': {
        get: {
            tags: ['Logs'],
            operationId: 'getLogPayload',
            summary: 'Get the original payload of an event',
            description: 'The request body as it was captured, hydrated from the key-value store when it was offloaded. The `Content-Type` mirrors the captured content type when known. The body is JSON when the stored payload is an object, raw text when it is text, raw bytes when it is binary.',
            parameters: [LOG_ID],
            responses: {
                '200': {
                    description: 'The payload.',
                    content: {
                        'application/json': { schema: {} },
                        'text/plain': { schema: { type: 'string' } },
                        'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
                        '*/*': { schema: { type: 'string', format: 'binary' } },
                    },
                    headers: ANSWER_HEADERS,
                },
                '401': RESPONSES.Unauthorized,
                '404': RESPONSES.NotFound,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
    '/logs/{logId}/files/{index}': {
        get: {
            tags: ['Logs'],
            operationId: 'getLogFile',
            summary: 'Download one file of a form body',
            description:
                "The bytes of one file of a form capture (`form.files[].index`), exactly as they are in the stored payload: read out of it part by part (streamed when it was offloaded), never from a copy. `Content-Type` is the part's own; `Content-Disposition: attachment` carries the filename (an ASCII fallback and `filename*=UTF-8''…`, the last path segment only). Like `/payload` it is inert in a browser: `Content-Security-Policy: sandbox` and `X-Content-Type-Options: nosniff`. A form field over 1 MB is a file too (no filename).",
            parameters: [
                LOG_ID,
                { name: 'index', in: 'path', required: true, description: "The file's `index` in `form.files` (the part's position in the body).", schema: { type: 'integer', minimum: 0 } },
            ],
            responses: {
                '200': {
                    description: 'The file.',
                    content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
                    headers: ANSWER_HEADERS,
                },
                '401': RESPONSES.Unauthorized,
                '404': {
                    description: 'Unknown capture, a capture that is no form, or no file at that index (a field, or past the last part).',
                    content: { 'application/json': { schema: ERROR_SCHEMA } },
                },
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
};
