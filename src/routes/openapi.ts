import { Router } from 'express';
import { openapiText } from '../api/openapi/document.js';
import type { AppDeps } from './deps.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';

/** GET /openapi.json: the OpenAPI description of every route (the `docs` link of /info), built once from src/api. */
export function openapiRoutes(deps: Pick<AppDeps, 'version'>, mw: RouteGuards): Router {
    // The same text `npm run build` writes to .actor/web_server_schema.json for the platform.
    const document = Buffer.from(openapiText(deps.version));
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
