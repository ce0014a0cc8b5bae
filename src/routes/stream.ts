import { Router } from 'express';
import type { AppDeps } from '../deps.js';
import { ctxOf } from '../http/context.js';
import { methodNotAllowed, type RouteGuards } from '../http/middleware.js';

/**
 * GET /log-stream: Server-Sent Events of every capture. A reconnecting client's `Last-Event-ID`
 * (or `?lastEventId=` for clients that cannot set headers) resumes after that event.
 */
export function streamRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router();
    router
        .route('/log-stream')
        .get(...mw.guarded, (req, res) => {
            const header = req.headers['last-event-id'];
            const lastEventId = typeof header === 'string' ? header : (ctxOf(res).search.get('lastEventId') ?? undefined);
            deps.live.connect(res, lastEventId?.trim());
        })
        .all(methodNotAllowed);
    return router;
}
