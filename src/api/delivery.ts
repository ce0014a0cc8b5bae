// What the `listen` command reports after it delivered captures to a local server: the body of
// POST /logs/deliveries. The service keeps each report in its event's `replays` with `via: "listen"`.
import type { Shape } from './schema.js';

/** The most reports one POST /logs/deliveries carries. */
export const MAX_DELIVERY_REPORTS = 1000;

/** One delivery of a capture to a local server by `listen` (component DeliveryReport). */
export const DELIVERY_REPORT_SCHEMA = {
    type: 'object',
    description: 'One delivery of a capture by the `listen` command to a local server.',
    required: ['eventId', 'target', 'status', 'durationMs', 'error'],
    additionalProperties: false,
    properties: {
        eventId: { type: 'string', minLength: 1, maxLength: 256, description: 'The capture delivered.' },
        target: { type: 'string', minLength: 1, maxLength: 4096, description: 'The local URL it was sent to.', example: 'http://localhost:3000/hooks/stripe' },
        status: { type: ['integer', 'null'], minimum: 100, maximum: 999, description: "The local server's status; null when no request could be made (`error` says why)." },
        durationMs: { type: 'number', minimum: 0, maximum: 86_400_000, description: 'From the first byte sent to the answer read, of the attempt that got it.' },
        error: { type: ['string', 'null'], maxLength: 2000, description: 'Why no answer came; null when one did.' },
        attempts: { type: 'integer', minimum: 1, maximum: 1_000_000_000, description: 'Tries it took (a local server that was down is retried until it answers); 1 when absent.' },
    },
} as const;

/** One report of POST /logs/deliveries. */
export type DeliveryReport = Shape<typeof DELIVERY_REPORT_SCHEMA>;

/** The body of POST /logs/deliveries (component DeliveryReports). */
export const DELIVERY_REPORTS_SCHEMA = {
    type: 'object',
    description: 'Deliveries made by the `listen` command, in the order they were made.',
    required: ['items'],
    additionalProperties: false,
    properties: { items: { type: 'array', minItems: 1, maxItems: MAX_DELIVERY_REPORTS, items: DELIVERY_REPORT_SCHEMA } },
} as const;

/** The body of POST /logs/deliveries. */
export type DeliveryReports = Shape<typeof DELIVERY_REPORTS_SCHEMA>;

/** The answer of POST /logs/deliveries (component DeliveriesRecorded). */
export const DELIVERIES_RECORDED_SCHEMA = {
    type: 'object',
    required: ['recorded', 'unknown'],
    properties: {
        recorded: { type: 'integer', description: 'Reports kept on their events.' },
        unknown: { type: 'array', items: { type: 'string' }, description: 'Event ids of the reports not kept: no such capture (deleted), or its webhook expired.' },
    },
} as const;

/** The answer of POST /logs/deliveries. */
export type DeliveriesRecorded = Shape<typeof DELIVERIES_RECORDED_SCHEMA>;
