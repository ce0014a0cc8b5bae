// POST /logs/deliveries: where the `listen` command delivered captures.
import { DELIVERIES_RECORDED_SCHEMA, DELIVERY_REPORTS_SCHEMA } from '../../delivery.js';
import { VALIDATION_ERROR_SCHEMA } from '../../errors.js';
import { ANSWER_HEADERS, jsonBody, RESPONSES } from '../components.js';
import type { PathItems } from '../types.js';

/** The route `listen` records its deliveries through. */
export const DELIVERIES_PATHS: PathItems = {
    '/logs/deliveries': {
        post: {
            tags: ['Logs'],
            operationId: 'recordDeliveries',
            summary: 'Record deliveries made by the listen command',
            description:
                'The `webhook-debugger listen` command reports here where it delivered captures (up to 1,000 per request). Each report is kept beside replays: it appears in its event\'s `replays` (GET /logs/{logId}) with `via: "listen"` and `durationMs`, within the same latest-50 history. Reports of unknown or expired captures are skipped and listed in `unknown`.',
            requestBody: {
                required: true,
                content: jsonBody(DELIVERY_REPORTS_SCHEMA, { items: [{ eventId: 'V1StGXR8_Z5jdHi6B-myT', target: 'http://localhost:3000/hooks/stripe', status: 200, durationMs: 4.2, error: null, attempts: 1 }] }),
            },
            responses: {
                '200': { description: 'Recorded.', content: jsonBody(DELIVERIES_RECORDED_SCHEMA, { recorded: 1, unknown: [] }), headers: ANSWER_HEADERS },
                '400': { description: 'The body is not JSON or not DeliveryReports; `details` lists the problems.', content: jsonBody(VALIDATION_ERROR_SCHEMA) },
                '401': RESPONSES.Unauthorized,
                '429': RESPONSES.TooManyRequests,
                '500': RESPONSES.InternalError,
            },
        },
    },
};
