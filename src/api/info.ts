// What GET /info, /health, /ready and /system/metrics answer.
import type { Shape } from './schema.js';
import { ACTIVE_WEBHOOK_SCHEMA } from './webhook.js';

const URL_TEXT = (description: string) => ({ type: 'string', description }) as const;

/** GET /info (component Info). */
export const INFO_SCHEMA = {
    type: 'object',
    required: ['version', 'status', 'system', 'features', 'endpoints', 'docs'],
    properties: {
        version: { type: 'string', example: '3.0.5' },
        status: { type: 'string', description: 'Human-readable tier/online string.', example: 'online' },
        system: {
            type: 'object',
            required: ['authActive', 'retentionHours', 'maxPayloadLimit', 'webhookCount', 'activeWebhooks'],
            properties: {
                authActive: { type: 'boolean', description: 'Whether `authKey` is enforced.' },
                retentionHours: { type: 'number', example: 24 },
                maxPayloadLimit: { type: 'string', example: '10.0MB' },
                webhookCount: { type: 'integer', example: 3 },
                activeWebhooks: { type: 'array', items: ACTIVE_WEBHOOK_SCHEMA },
                storage: {
                    type: 'object',
                    description:
                        'The engine that keeps the events: `sqlite` (embedded, one instance) or `postgres` (shared by every instance on the same `databaseUrl` / `DATABASE_URL`), and whether it works as last seen. The database address is never shown.',
                    required: ['backend', 'healthy'],
                    properties: { backend: { type: 'string', enum: ['sqlite', 'postgres'] }, healthy: { type: 'boolean' } },
                },
            },
        },
        features: { type: 'array', items: { type: 'string' }, example: ['sse-stream', 'replay', 'signature-verification'] },
        endpoints: {
            type: 'object',
            description: 'Absolute URLs of the endpoints.',
            required: ['logs', 'logDetail', 'logPayload', 'stream', 'webhook', 'replay', 'info', 'systemMetrics', 'health', 'ready'],
            properties: {
                logs: URL_TEXT('Query route, with `?limit=100`.'),
                logDetail: URL_TEXT('Single event route (template).'),
                logPayload: URL_TEXT('Payload route (template).'),
                stream: URL_TEXT('Server-Sent Events feed.'),
                webhook: URL_TEXT('Ingest route (template).'),
                replay: URL_TEXT('Replay route (template), with a `url` query placeholder.'),
                info: URL_TEXT('This route.'),
                systemMetrics: URL_TEXT('Metrics route.'),
                health: URL_TEXT('Liveness probe.'),
                ready: URL_TEXT('Readiness probe.'),
            },
            additionalProperties: { type: 'string' },
        },
        docs: { type: 'string', format: 'uri', description: 'Documentation page for the service.' },
    },
} as const;

/** What GET /info answers. */
export type Info = Shape<typeof INFO_SCHEMA>;

/** GET /health (component Health). */
export const HEALTH_SCHEMA = {
    type: 'object',
    required: ['status', 'uptime', 'timestamp', 'memory'],
    properties: {
        status: { type: 'string', enum: ['healthy'] },
        uptime: { type: 'number', description: 'Seconds since start.', example: 3600.5 },
        timestamp: { type: 'string', format: 'date-time' },
        memory: {
            type: 'object',
            required: ['heapUsed', 'heapTotal', 'rss', 'unit'],
            properties: {
                heapUsed: { type: 'number', example: 42.1 },
                heapTotal: { type: 'number', example: 64 },
                rss: { type: 'number', example: 118.3 },
                unit: { type: 'string', enum: ['MB'] },
            },
        },
    },
} as const;

/** One check of GET /ready (component Check). */
export const CHECK_SCHEMA = {
    type: 'object',
    required: ['status'],
    properties: {
        status: { type: 'string', enum: ['ok', 'error'] },
        message: { type: 'string' },
        backend: { type: 'string', enum: ['sqlite', 'postgres'], description: 'The storage engine (the `database` check only).' },
    },
} as const;

/** One check of GET /ready. */
export type Check = Shape<typeof CHECK_SCHEMA>;

/** GET /ready (component Readiness). */
export const READINESS_SCHEMA = {
    type: 'object',
    required: ['status', 'timestamp', 'checks'],
    properties: {
        status: { type: 'string', enum: ['ready', 'not_ready'] },
        timestamp: { type: 'string', format: 'date-time' },
        checks: {
            type: 'object',
            required: ['database', 'webhooks'],
            properties: { database: CHECK_SCHEMA, webhooks: CHECK_SCHEMA },
            additionalProperties: CHECK_SCHEMA,
        },
    },
} as const;

/** GET /system/metrics (component SystemMetrics). */
export const SYSTEM_METRICS_SCHEMA = {
    type: 'object',
    description: 'Operational metrics. The set of keys may grow between releases.',
    additionalProperties: true,
} as const;
