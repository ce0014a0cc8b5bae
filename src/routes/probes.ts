import type { AppDeps } from './deps.js';
import { sendJson } from '../http/respond.js';
import { Router, type Request, type Response } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import type { Check } from '../api/info.js';

const mb = (bytes: number): number => Math.round((bytes / 1048576) * 100) / 100;

/** GET /health and GET /ready: never protected, rate-limited. */
export function probeRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/health').get(...mw.limited, healthHandler(deps)).all(mw.notAllowed);
    router.route('/ready').get(...mw.limited, readyHandler(deps)).all(mw.notAllowed);
    return router;
}

/** GET /health: liveness, always 200 while the process serves. */
function healthHandler(deps: AppDeps) {
    return (_req: Request, res: Response): void => {
        const m = process.memoryUsage();
        sendJson(res, 200, {
            status: 'healthy',
            uptime: Math.round(process.uptime()),
            timestamp: new Date(deps.clock.now()).toISOString(),
            memory: { heapUsed: mb(m.heapUsed), heapTotal: mb(m.heapTotal), rss: mb(m.rss), unit: 'MB' },
        });
    };
}


/** GET /ready: 200 when storage and webhooks work and the service accepts traffic, else 503. */
function readyHandler(deps: AppDeps) {
    return (_req: Request, res: Response): void => {
        const catchUp = deps.readiness.catchUp;
        const { health } = deps.storage;
        // The database check names the backend, and says why it is down (the database is away, the writer failed).
        const database: Check = health.healthy() ? { status: 'ok', backend: health.backend } : { status: 'error', backend: health.backend, message: health.problem() ?? 'storage is not writable' };
        if (database.status === 'ok' && catchUp && !catchUp.done) database.message = `restoring events from the dataset: ${catchUp.imported} so far`;
        if (catchUp?.error) Object.assign(database, { status: 'error', message: `restore from the dataset failed: ${catchUp.error}` });
        const count = deps.webhooks.active().length;
        const webhooks: Check = deps.webhooks.ready && count > 0
            ? { status: 'ok', message: `${count} active webhooks` }
            : { status: 'error', message: deps.webhooks.ready ? 'no active webhooks' : 'webhooks not initialized' };
        const ready = deps.readiness.accepting && database.status === 'ok' && webhooks.status === 'ok';
        sendJson(res, ready ? 200 : 503, {
            status: ready ? 'ready' : 'not_ready',
            timestamp: new Date(deps.clock.now()).toISOString(),
            checks: { database, webhooks, ...(deps.readiness.accepting ? {} : { server: { status: 'error', message: 'not accepting requests' } }) },
        });
    };
}
