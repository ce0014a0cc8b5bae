import { Router } from 'express';
import type { AppDeps } from './deps.js';
import { SSE_HEADERS } from '../live/hub.js';
import { ctxOf } from '../http/context.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { parseStreamRequest } from '../http/stream-query.js';

/**
 * GET /log-stream: Server-Sent Events of every capture, or with the filters of GET /logs only of
 * those they accept. A reconnecting client's `Last-Event-ID` (or `?lastEventId=` for clients that
 * cannot set headers) resumes after that event, with at most `resumeLimit` missed ones.
 * HEAD answers what GET would (200 with the stream headers, a 400 for a bad parameter, or the 503
 * of a full hub) and ends at once: it opens no stream and takes no client slot.
 */
export function streamRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/log-stream')
        .head(...mw.guarded, (_req, res) => {
            parseStreamRequest(ctxOf(res).search, undefined);
            deps.live.assertRoom();
            res.writeHead(200, SSE_HEADERS).end();
        })
        .get(...mw.guarded, (req, res) => {
            const header = req.headers['last-event-id'];
            deps.live.connect(res, parseStreamRequest(ctxOf(res).search, typeof header === 'string' ? header : undefined));
        })
        .all(mw.notAllowed);
    return router;
}
