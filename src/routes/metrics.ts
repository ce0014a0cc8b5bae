import type { AppDeps } from './deps.js';
import { sendJson } from '../http/respond.js';
import { Router, type Request, type Response } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';

/** GET /system/metrics: storage, export (sync), ingest, forwarding, live-stream and query figures. */
export function metricsRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/system/metrics').get(...mw.guarded, metricsHandler(deps)).all(mw.notAllowed);
    return router;
}

function metricsHandler(deps: AppDeps) {
    return async (_req: Request, res: Response): Promise<void> => {
        const { health } = deps.storage;
        const stats = await health.stats();
        const m = deps.metrics;
        const queries = health.queryStats();
        sendJson(res, 200, {
            timestamp: new Date(deps.clock.now()).toISOString(),
            uptimeSeconds: Math.round(process.uptime()),
            storage: {
                backend: health.backend,
                eventsStored: stats.eventsStored,
                offloadedPayloads: stats.offloadedPayloads,
                unindexed: stats.unindexed ?? 0,
                databaseBytes: stats.databaseBytes,
                durability: stats.durability,
                healthy: health.healthy(),
                problem: health.problem() ?? null,
            },
            sync: {
                outboxBacklog: stats.outboxBacklog,
                datasetExported: m.datasetExported,
                lastDatasetFlushAt: m.lastDatasetFlushAt,
                lastDatasetFlushError: m.lastDatasetFlushError,
                catchUp: deps.readiness.catchUp ?? null,
            },
            ingest: {
                captured: m.ingestTotal,
                rejectedBeforeCapture: m.ingestRejected,
                storageFailures: m.storageFailures,
                byStatus: m.statusCounts(),
                processingTimeMs: m.processingPercentiles(),
            },
            forwarding: { ...m.forwarding, backlog: stats.forwardBacklog, heldInMemory: deps.forwarder?.heldInMemory ?? 0, trickling: deps.forwarder?.trickling ?? false },
            liveStream: { clients: deps.live.size, droppedSlowReaders: deps.live.dropped },
            queries: { rejectedBusy: queries?.refused ?? 0, timedOut: queries?.timedOut ?? 0, cancelled: queries?.cancelled ?? 0 },
            webhooks: { active: deps.webhooks.active().length },
            memory: process.memoryUsage(),
        });
    };
}
