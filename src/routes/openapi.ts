import { readFileSync } from 'node:fs';
import { Router } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';

const document = readFileSync(new URL('../../.actor/web_server_schema.json', import.meta.url));

/** GET /openapi.json: the OpenAPI description of every route (the `docs` link of /info). */
export function openapiRoutes(mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/openapi.json')
        .get(...mw.guarded, (_req, res) => {
            res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': document.length });
            res.end(document);
        })
        .all(mw.notAllowed);
    return router;
}
