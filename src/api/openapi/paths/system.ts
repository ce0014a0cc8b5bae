// The dashboard, /info, /system/metrics and the probes.
import { HEALTH_SCHEMA, INFO_SCHEMA, READINESS_SCHEMA, SYSTEM_METRICS_SCHEMA } from '../../info.js';
import { ANSWER_HEADERS, RESPONSES } from '../components.js';
import type { PathItems } from '../types.js';

/** The dashboard, runtime metadata, metrics and probes. */
export const SYSTEM_PATHS: PathItems = {
    '/': {
        get: {
            tags: ['System'],
            operationId: 'getDashboard',
            summary: 'Dashboard',
            description: "Serves the browser dashboard (HTML). A request with the `x-apify-container-server-readiness-probe` header is the platform's readiness probe and is answered 200 at once, before authentication and rate limiting.",
            parameters: [
                {
                    name: 'x-apify-container-server-readiness-probe',
                    in: 'header',
                    required: false,
                    description: "Set by the Apify platform's readiness probe.",
                    schema: { type: 'string' },
                },
            ],
            responses: {
                '200': {
                    description: 'The dashboard page.',
                    content: { 'text/html': { schema: { type: 'string' } } },
                    headers: ANSWER_HEADERS,
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
    '/info': {
        get: {
            tags: ['System'],
            operationId: 'getInfo',
            summary: 'Runtime metadata and endpoint map',
            description: 'Version, effective settings, the active webhooks and absolute URLs of every endpoint.',
            responses: {
                '200': { description: 'Runtime metadata.', content: { 'application/json': { schema: INFO_SCHEMA } }, headers: ANSWER_HEADERS },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
    '/system/metrics': {
        get: {
            tags: ['System'],
            operationId: 'getSystemMetrics',
            summary: 'Storage sync and operational metrics',
            description: 'Counters and gauges of the running instance: ingest, storage (read model and dataset export outbox), stream clients, memory.',
            responses: {
                '200': {
                    description: 'Current metrics.',
                    content: { 'application/json': { schema: SYSTEM_METRICS_SCHEMA } },
                    headers: ANSWER_HEADERS,
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
    '/health': {
        get: {
            tags: ['System'],
            operationId: 'getHealth',
            summary: 'Liveness probe',
            description: 'Never requires the auth key. Rate-limited like the management routes.',
            security: [],
            responses: {
                '200': {
                    description: 'The process is alive.',
                    content: { 'application/json': { schema: HEALTH_SCHEMA } },
                    headers: ANSWER_HEADERS,
                },
                '429': RESPONSES.TooManyRequests,
            },
        },
    },
    '/ready': {
        get: {
            tags: ['System'],
            operationId: 'getReady',
            summary: 'Readiness probe',
            description: 'Never requires the auth key. Rate-limited like the management routes. 200 when the database and the webhook manager are up, 503 otherwise.',
            security: [],
            responses: {
                '200': {
                    description: 'Ready.',
                    content: {
                        'application/json': {
                            schema: READINESS_SCHEMA,
                            example: {
                                status: 'ready',
                                timestamp: '2025-01-15T10:32:07.412Z',
                                checks: { database: { status: 'ok' }, webhooks: { status: 'ok', message: '3 active webhooks' } },
                            },
                        },
                    },
                    headers: ANSWER_HEADERS,
                },
                '429': RESPONSES.TooManyRequests,
                '503': {
                    description: 'Not ready: a check failed.',
                    content: {
                        'application/json': {
                            schema: READINESS_SCHEMA,
                            example: {
                                status: 'not_ready',
                                timestamp: '2025-01-15T10:32:07.412Z',
                                checks: {
                                    database: { status: 'error', message: 'Catching up from the dataset' },
                                    webhooks: { status: 'ok', message: '3 active webhooks' },
                                },
                            },
                        },
                    },
                },
            },
        },
    },
};
