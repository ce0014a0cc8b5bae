// /webhooks and /webhooks/{id}: the webhooks you manage (DECISIONS.md "Webhooks you manage").
import { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../../errors.js';
import { MANAGED_WEBHOOK_SCHEMA, WEBHOOK_CREATE_SCHEMA, WEBHOOK_PATCH_SCHEMA } from '../../webhook.js';
import { HEADERS, jsonBody, RESPONSES } from '../components.js';
import type { Parameter, PathItems, Response } from '../types.js';

const ID: Parameter = { name: 'id', in: 'path', required: true, description: 'Webhook ID.', schema: { type: 'string' } };
const REQUEST_ID = { 'X-Request-Id': HEADERS['X-Request-Id'] };

const THE_WEBHOOK: Response = { description: 'The webhook.', content: jsonBody(MANAGED_WEBHOOK_SCHEMA), headers: REQUEST_ID };
const UNKNOWN: Response = { description: 'Unknown or expired webhook.', content: jsonBody(ERROR_SCHEMA) };
const REFUSED: Response = {
    description:
        'The body is not JSON or does not match the schema (unknown fields included); `details` lists at most 20 problems, `moreDetails` how many more there were.',
    content: jsonBody(VALIDATION_ERROR_SCHEMA),
};
const TOO_LARGE: Response = {
    description:
        "The body is over 8 MB (`limit`), or the webhooks' answers would pass their share of the memory budget (`limit`, and `used`: the bytes they hold now).",
    content: jsonBody(ERROR_SCHEMA),
};

/** The management routes of webhooks. */
export const WEBHOOKS_PATHS: PathItems = {
    '/webhooks': {
        get: {
            tags: ['Manage'],
            operationId: 'listWebhooks',
            summary: 'List the active webhooks',
            description: 'Active webhooks, oldest first, with the captures each holds.',
            responses: {
                '200': {
                    description: 'The webhooks.',
                    content: jsonBody({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: MANAGED_WEBHOOK_SCHEMA } } }),
                    headers: REQUEST_ID,
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
            },
        },
        post: {
            tags: ['Manage'],
            operationId: 'createWebhook',
            summary: 'Create a webhook (a new URL)',
            description: 'Creates a webhook that works at once and lasts across restarts.',
            requestBody: { required: false, content: jsonBody(WEBHOOK_CREATE_SCHEMA) },
            responses: {
                '201': THE_WEBHOOK,
                '400': REFUSED,
                '401': RESPONSES.Unauthorized,
                '409': {
                    description: 'The service holds its maximum of active webhooks (`maxWebhooks`); delete one first.',
                    content: jsonBody(ERROR_SCHEMA),
                },
                '413': TOO_LARGE,
                '429': RESPONSES.TooManyRequests,
            },
        },
    },
    '/webhooks/{id}': {
        get: {
            tags: ['Manage'],
            operationId: 'getWebhook',
            summary: 'Get one webhook',
            parameters: [ID],
            responses: { '200': THE_WEBHOOK, '401': RESPONSES.Unauthorized, '404': UNKNOWN, '429': RESPONSES.TooManyRequests },
        },
        patch: {
            tags: ['Manage'],
            operationId: 'updateWebhook',
            summary: "Change a webhook's name, answer or expiry",
            description:
                'Takes effect on the next request. `response` is replaced whole (`null` clears it); setting it starts its `sequence` over. `retentionHours` moves the expiry to that many hours from now.',
            parameters: [ID],
            requestBody: { required: true, content: jsonBody(WEBHOOK_PATCH_SCHEMA) },
            responses: {
                '200': THE_WEBHOOK,
                '400': REFUSED,
                '401': RESPONSES.Unauthorized,
                '404': UNKNOWN,
                '413': TOO_LARGE,
                '429': RESPONSES.TooManyRequests,
            },
        },
        delete: {
            tags: ['Manage'],
            operationId: 'deleteWebhook',
            summary: 'Delete a webhook and its captures',
            description:
                'Ingest on it answers 404 from then on; its captures and their payloads are deleted. On the platform, items already exported to the dataset stay there (it is append-only).',
            parameters: [ID],
            responses: { '204': { description: 'Deleted.' }, '401': RESPONSES.Unauthorized, '404': UNKNOWN, '429': RESPONSES.TooManyRequests },
        },
    },
};
