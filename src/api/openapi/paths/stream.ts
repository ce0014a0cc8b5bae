// /log-stream: the live feed (Server-Sent Events).
import { ERROR_SCHEMA } from '../../errors.js';
import { RESPONSES } from '../components.js';
import type { PathItems } from '../types.js';
import { FILTER_PARAMETERS } from './log-filters.js';

/** The live feed. */
export const STREAM_PATHS: PathItems = {
    '/log-stream': {
        get: {
            tags: ['Stream'],
            operationId: 'streamLogs',
            summary: 'Live feed of captured events (Server-Sent Events)',
            description: 'A `text/event-stream` that never ends on its own; compression is off so frames flush at once. Frames:\n\n- `: connected` comment right after connecting;\n- for each captured request on any active webhook that the filters accept: `id: <logId>` and `data: <JSON>`, the event as `GET /logs/{logId}` returns it (a body over 64 KB is replaced by `{truncated: true, size, payloadUrl}`);\n- `: heartbeat` comment every 30 s.\n\nNo `event:` field is used. The filters are those of `GET /logs` (no filter: every capture); the stream sends exactly the captures `GET /logs` with the same filters lists, live and on resume. `limit`, `offset`, `sort` and `cursor` are refused: a stream has no pages. A client reconnecting with `Last-Event-ID` first receives the events it missed that the filters accept, in capture order: at most `resumeLimit` (default 1,000), then a `: resume incomplete, page /logs` comment when more were missed (also after reading 100,000 missed events the filters refuse, or for an unknown id). At most 100 clients at once; the 101st gets 503.',
            parameters: [
                {
                    name: 'Last-Event-ID',
                    in: 'header',
                    required: false,
                    description: 'ID of the last event the client received; events captured after it are sent first.',
                    schema: { type: 'string' },
                },
                {
                    name: 'lastEventId',
                    in: 'query',
                    required: false,
                    description: 'The same as the `Last-Event-ID` header, for clients that cannot set headers (the header wins when both are sent).',
                    schema: { type: 'string' },
                },
                {
                    name: 'resumeLimit',
                    in: 'query',
                    required: false,
                    description: 'The most missed events one resume sends before `: resume incomplete, page /logs`. Raise it to catch up a long backlog from storage, in capture order, paced by the client\'s reading.',
                    schema: { type: 'integer', minimum: 1, maximum: 10000000, default: 1000 },
                },
                {
                    name: 'rawBodies',
                    in: 'query',
                    required: false,
                    description: 'With `true`, each frame also carries `rawBody`: the bytes `GET /logs/{logId}/payload` serves, base64, for bodies up to 64 KB (absent for larger ones and for bodies a custom script replaced: read the payload route for those). The `listen` command asks for it, so it makes no payload request per small capture.',
                    schema: { type: 'boolean', default: false },
                },
                ...FILTER_PARAMETERS,
            ],
            responses: {
                '200': {
                    description: 'The event stream.',
                    content: { 'text/event-stream': { schema: { type: 'string' }, example: ': connected\n\nid: V1StGXR8_Z5jdHi6B-myT\ndata: {"id":"V1StGXR8_Z5jdHi6B-myT","webhookId":"wh_4f8Kq2xYbN0aLm3ZpR7sT","method":"POST","statusCode":200}\n\n: heartbeat\n\n' } },
                },
                '400': {
                    description: 'A filter `GET /logs` would refuse, a paging parameter, or a bad `resumeLimit` or `rawBodies`; answered before any stream opens. `parameter` names it.',
                    content: {
                        'application/json': {
                            schema: ERROR_SCHEMA,
                            example: { status: 400, error: 'Bad Request', message: "Parameter 'limit' does not apply to GET /log-stream: a stream has no pages or order (its filters are those of GET /logs)", parameter: 'limit' },
                        },
                    },
                },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
                '503': {
                    description: 'The maximum number of concurrent stream clients (100) is connected.',
                    content: {
                        'application/json': {
                            schema: ERROR_SCHEMA,
                            example: { status: 503, error: 'Service Unavailable', message: 'Maximum concurrent SSE client limit reached (100)' },
                        },
                    },
                },
            },
        },
    },
};
