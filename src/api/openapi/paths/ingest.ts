// /webhook/{id}: the URL senders call, with any method.
import { ANSWER_HEADERS, PARAMETERS, REQUEST_BODIES, RESPONSES, RETRY_HEADERS } from '../components.js';
import type { Operation, PathItems, Response } from '../types.js';

const ANSWERS: Record<string, Response> = {
    '200': RESPONSES.IngestOk,
    '400': RESPONSES.IngestBadRequest,
    '401': RESPONSES.Unauthorized,
    '403': RESPONSES.IngestForbidden,
    '404': RESPONSES.IngestNotFound,
    '413': RESPONSES.IngestPayloadTooLarge,
    '422': RESPONSES.IngestLoop,
    '429': RESPONSES.IngestTooManyRequests,
    default: RESPONSES.IngestOtherStatus,
};

// A HEAD answer has no body to describe.
const HEAD_ANSWERS: Record<string, Response> = {
    '200': { description: 'Captured (headers only).', headers: ANSWER_HEADERS },
    '400': { description: 'Payload failed `jsonSchema`, or `__status=400`.' },
    '401': { description: 'Missing or invalid authentication key.' },
    '403': { description: 'Source IP not allowed.' },
    '404': { description: 'Unknown or expired webhook.' },
    '429': { description: 'Per-webhook rate limit exceeded.', headers: RETRY_HEADERS },
    default: { description: 'Any other status chosen with `__status`, `defaultResponseCode` or the custom script.' },
};

/** The capture of one method; POST, PUT and PATCH document a body. */
function capture(method: string, responses: Record<string, Response> = ANSWERS, withBody = false): Operation {
    const operation: Operation = {
        tags: ['Webhooks'],
        operationId: `webhook${method.charAt(0)}${method.slice(1).toLowerCase()}`,
        summary: `Capture a ${method} request`,
        responses,
    };
    if (withBody) operation.requestBody = REQUEST_BODIES.AnyPayload;
    return operation;
}

/** The ingest route. */
export const INGEST_PATHS: PathItems = {
    '/webhook/{id}': {
        summary: 'Webhook ingest (any method)',
        description: 'Receives a request of any method on a generated webhook and records it (headers, query, body, response, timing, source IP).\n\nChecks run in order: the webhook exists and has not expired (404), source IP allowlist `allowedIps` (403), auth key when `authKey` is set (401), per-webhook rate limit of 10000 per minute (429); requests stopped there are not stored. Then the body is read (413 above `maxPayloadSize`; bodies above 5 MB are streamed to the key-value store), parsed when `enableJSONParsing` is on, validated against `jsonSchema` (400), signature-checked (recorded on the event, never changes the answer), passed to the custom script, and forwarded to `forwardUrl` (422 when a forwarding loop is detected); these requests are stored with the status they got.\n\nThe answer is `defaultResponseCode` / `defaultResponseBody` / `defaultResponseHeaders` (out of the box 200 `text/plain` `OK`), after `responseDelayMs`. It carries permissive CORS headers, so browser senders work; an OPTIONS preflight is captured like any other request.',
        parameters: [PARAMETERS.WebhookId, PARAMETERS.StatusOverride],
        get: capture('GET'),
        post: capture('POST', ANSWERS, true),
        put: capture('PUT', ANSWERS, true),
        patch: capture('PATCH', ANSWERS, true),
        delete: capture('DELETE'),
        head: capture('HEAD', HEAD_ANSWERS),
        options: capture('OPTIONS'),
    },
};
