// The OpenAPI document of the service, built from the API's shapes (src/api/*.ts) and the path data
// beside this file. `npm run build` writes it to .actor/web_server_schema.json (scripts/openapi.mjs),
// the file the Apify platform reads; GET /openapi.json serves the same text.
import { emit } from './emit.js';
import { HEADERS, PARAMETERS, REQUEST_BODIES, RESPONSES, SECURITY_SCHEMES } from './components.js';
import { SCHEMAS } from './schemas.js';
import { DELIVERIES_PATHS } from './paths/deliveries.js';
import { INGEST_PATHS } from './paths/ingest.js';
import { LOGS_PATHS } from './paths/logs.js';
import { REPLAY_PATHS } from './paths/replay.js';
import { REPLAY_JOBS_PATHS } from './paths/replay-jobs.js';
import { STREAM_PATHS } from './paths/stream.js';
import { SYSTEM_PATHS } from './paths/system.js';
import { WEBHOOKS_PATHS } from './paths/webhooks.js';

const DESCRIPTION = [
    'Capture, inspect, stream and replay webhooks.',
    'Send anything to `/webhook/{id}` (the IDs are printed at start and listed by `GET /info`), then query what arrived with `GET /logs`, read one event with `GET /logs/{logId}`, fetch its original payload with `GET /logs/{logId}/payload`, watch new events live on `GET /log-stream`, and re-send one to your own endpoint with `POST /replay/{webhookId}/{itemId}?url=…`.',
    '**Authentication is opt-in.** Without the `authKey` input every route, ingest included, is public. When `authKey` is set, every route except `/health` and `/ready` requires it, as `?key=<key>` or `Authorization: Bearer <key>`. On the Apify Standby URL, use `?key=<key>`: there the `Authorization` header carries your Apify API token.',
    '**Rate limits.** Management and probe routes allow `rateLimitPerMinute` requests per client IP per 60 s (default 60); ingest allows 10000 requests per minute per webhook. Every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`; a 429 adds `Retry-After`.',
    'Errors are JSON: `{status, error, message}` plus route-specific fields; 5xx answers carry a `requestId` and never a stack trace. Every answer carries an `X-Request-Id` header.',
].join('\n\n');

const TAGS = [
    { name: 'Webhooks', description: 'Ingest: the URLs that senders call.' },
    { name: 'Manage', description: 'Create webhooks, set how each answers (fault injection included), delete them.' },
    { name: 'Logs', description: 'Query captured events and their payloads.' },
    { name: 'Stream', description: 'Live feed of captured events (Server-Sent Events).' },
    { name: 'Replay', description: 'Re-send a captured event to another URL, or every capture a filter matches (bulk replay jobs).' },
    { name: 'System', description: 'Runtime metadata, metrics and probes.' },
];

// The document's order: the dashboard and /info first, then the routes by family.
const { '/': dashboard, '/info': info, ...probes } = SYSTEM_PATHS;
const PATHS = { '/': dashboard, '/info': info, ...LOGS_PATHS, ...DELIVERIES_PATHS, ...STREAM_PATHS, ...REPLAY_PATHS, ...REPLAY_JOBS_PATHS, ...probes, ...INGEST_PATHS, ...WEBHOOKS_PATHS };

const COMPONENTS: Readonly<Record<string, Readonly<Record<string, object>>>> = {
    securitySchemes: SECURITY_SCHEMES,
    parameters: PARAMETERS,
    headers: HEADERS,
    requestBodies: REQUEST_BODIES,
    responses: RESPONSES,
    schemas: SCHEMAS,
};

/** Each component object and the `$ref` that names it; one object registered twice is a mistake. */
function references(): Map<object, string> {
    const refs = new Map<object, string>();
    for (const [kind, group] of Object.entries(COMPONENTS)) {
        for (const [name, component] of Object.entries(group)) {
            const ref = `#/components/${kind}/${name}`;
            const other = refs.get(component);
            if (other !== undefined) throw new Error(`${ref} is the same object as ${other}`);
            refs.set(component, ref);
        }
    }
    return refs;
}

/** The OpenAPI 3.0 document of the service at `version` (package.json's). */
export function openapiDocument(version: string): Record<string, unknown> {
    const refs = references();
    const components = Object.fromEntries(
        Object.entries(COMPONENTS).map(([kind, group]) => [kind, Object.fromEntries(Object.entries(group).map(([name, c]) => [name, emit(c, refs, c)]))]),
    );
    return {
        openapi: '3.0.3',
        info: { title: 'Webhook Debugger API', version, description: DESCRIPTION },
        servers: [{ url: 'http://localhost:8080', description: 'Local run (the platform replaces this with the Standby URL)' }],
        tags: TAGS,
        security: [{ bearerAuth: [] }, { apiKeyQuery: [] }, {}],
        paths: emit(PATHS, refs),
        components,
    };
}

/** The document as the committed file and GET /openapi.json hold it: two-space JSON and a final newline. */
export function openapiText(version: string): string {
    return `${JSON.stringify(openapiDocument(version), null, 2)}\n`;
}
