// POST /replay/{webhookId}/{itemId}: re-sending a captured event.
import { REPLAY_ERROR_SCHEMA, REPLAY_RESULT_SCHEMA } from '../../replay.js';
import { ANSWER_HEADERS, RESPONSES } from '../components.js';
import type { PathItems } from '../types.js';

/** The replay route. */
export const REPLAY_PATHS: PathItems = {
    '/replay/{webhookId}/{itemId}': {
        post: {
            tags: ['Replay'],
            operationId: 'replayEvent',
            summary: 'Re-send a captured event',
            description: 'Sends the captured request again to `url`: same method, byte-exact stored body (redacted fields stay redacted). Masked headers (Authorization, Cookie, …) and transport headers (host, content-length, …) are removed; `X-Service-Replay: true`, `X-Original-Webhook-Id` and a fresh `Idempotency-Key` per attempt are added. Private, loopback, link-local, cloud-metadata and other reserved addresses are refused, for every address the name resolves to and across redirects. Up to `replayMaxRetries` attempts, each limited to `replayTimeoutMs`; only network errors and timeouts are retried. A target that answers 4xx/5xx is a completed replay (200).',
            parameters: [
                { name: 'webhookId', in: 'path', required: true, description: 'Webhook that owns the event.', schema: { type: 'string' } },
                { name: 'itemId', in: 'path', required: true, description: 'Log entry ID. When no entry has this ID but it parses as a timestamp, the event of that webhook captured at that time is used.', schema: { type: 'string' } },
                {
                    name: 'url',
                    in: 'query',
                    required: true,
                    description: 'Destination URL (http or https, public address).',
                    schema: { type: 'string', format: 'uri' },
                    example: 'https://example.com/hooks/test',
                },
            ],
            responses: {
                '200': {
                    description: 'The target answered (whatever its status).',
                    content: { 'application/json': { schema: REPLAY_RESULT_SCHEMA } },
                    headers: ANSWER_HEADERS,
                },
                '400': {
                    description: "`url` is missing, blocked or cannot be resolved. `error` is one of: \"Missing 'url' parameter\", \"URL resolves to internal/reserved IP range\", \"Unable to resolve hostname\".",
                    content: {
                        'application/json': {
                            schema: REPLAY_ERROR_SCHEMA,
                            example: {
                                status: 400,
                                error: 'URL resolves to internal/reserved IP range',
                                message: 'Replay target 169.254.169.254 is not allowed',
                            },
                        },
                    },
                },
                '401': RESPONSES.Unauthorized,
                '404': RESPONSES.NotFound,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
                '502': {
                    description: 'Every attempt failed on the network.',
                    content: {
                        'application/json': {
                            schema: REPLAY_ERROR_SCHEMA,
                            example: { status: 502, error: 'Replay Failed', message: 'Target unreachable after 3 attempts: connect ECONNREFUSED', code: 'ECONNREFUSED' },
                        },
                    },
                },
                '504': {
                    description: 'Every attempt timed out.',
                    content: {
                        'application/json': {
                            schema: REPLAY_ERROR_SCHEMA,
                            example: { status: 504, error: 'Replay Failed', message: 'Target timed out after 3 attempts (10s timeout per attempt)', code: 'ECONNABORTED' },
                        },
                    },
                },
            },
        },
    },
};
