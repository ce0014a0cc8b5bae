import { Router } from 'express';
import type { AppDeps } from './deps.js';
import { DELIVERY_REPORTS_SCHEMA, type DeliveriesRecorded, type DeliveryReport, type DeliveryReports } from '../api/delivery.js';
import { NotFoundError, validationError } from '../errors.js';
import { CredentialRule, maskUrl } from '../lib/credentials.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { sendJson } from '../http/respond.js';
import type { ReplayRecord } from '../storage/types.js';
import { boundedValidator } from '../webhooks/bounded-validation.js';
import { visibleEntryWebhook } from './logs.js';
import { readJson } from './webhooks.js';

/**
 * POST /logs/deliveries: the `listen` command reports where it delivered captures, up to 1,000 per
 * request (one request per delivery cost the service ~0.4 ms of CPU each, a third of its work per
 * delivery while a backlog is caught up: bench/listen.mjs). Each report is kept beside replays, in its
 * event's `replays` with `via: "listen"` (the same history, the same cap of 50), so GET /logs/:logId
 * and the dashboard show every place the capture went. Reports of unknown or expired captures are
 * skipped and listed in `unknown`. 400 with details for a body that is not DeliveryReports.
 * Registered before the /logs/:logId routes, which would take this path for an id.
 */
export function deliveryRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const validate = boundedValidator(DELIVERY_REPORTS_SCHEMA);
    const credentials = new CredentialRule(deps.config.input.authKey);
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/logs/deliveries')
        .post(...mw.guarded, async (req, res) => {
            const { value, text } = await readJson(req);
            const problems = validate(value, text);
            if (problems) throw validationError('The delivery reports are invalid', problems.details, problems.total);
            const at = new Date(deps.clock.now()).toISOString();
            const unknown: string[] = [];
            const record = async (report: DeliveryReport): Promise<void> => {
                try {
                    await visibleEntryWebhook(deps, report.eventId);
                    await deps.events.recordReplay(report.eventId, recordOf(report, at, credentials));
                } catch (error) {
                    if (!(error instanceof NotFoundError)) throw error;
                    unknown.push(report.eventId);
                }
            };
            // Concurrently, so the store commits them together (group commit); but one event's reports
            // (a delivery repeated) one after another, so its history keeps their order.
            const last = new Map<string, Promise<void>>();
            await Promise.all(
                (value as DeliveryReports).items.map((report) => {
                    const next = (last.get(report.eventId) ?? Promise.resolve()).then(() => record(report));
                    last.set(report.eventId, next);
                    return next;
                }),
            );
            const answer: DeliveriesRecorded = { recorded: (value as DeliveryReports).items.length - unknown.length, unknown };
            sendJson(res, 200, answer);
        })
        .all(mw.notAllowed);
    return router;
}

function recordOf(report: DeliveryReport, at: string, credentials: CredentialRule): ReplayRecord {
    return {
        at,
        // A local URL may still carry our key (a capture forwarded to this very service): it is not kept.
        targetUrl: maskUrl(report.target, credentials),
        targetResponseCode: report.status,
        attempts: report.attempts ?? 1,
        error: report.error,
        resigned: false,
        via: 'listen',
        durationMs: report.durationMs,
    };
}
