import { pipeline } from 'node:stream/promises';
import type { AppDeps } from './deps.js';
import { Router, type Request, type Response } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import type { BodyKind } from '../storage/types.js';
import { visibleEntryWebhook } from './logs.js';

const FALLBACK_TYPE: Record<BodyKind, string> = {
    empty: 'application/octet-stream',
    json: 'application/json',
    text: 'text/plain; charset=utf-8',
    binary: 'application/octet-stream',
    offloaded: 'application/octet-stream',
};

/**
 * GET /logs/:logId/payload: the body exactly as stored, with the captured Content-Type.
 * Captured content is attacker-controlled, so it is served sandboxed and never sniffed.
 */
export function payloadRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/logs/:logId/payload').get(...mw.guarded, payloadHandler(deps)).all(mw.notAllowed);
    return router;
}

function payloadHandler(deps: AppDeps) {
    return async (req: Request<{ logId: string }>, res: Response): Promise<void> => {
        const logId = req.params.logId;
        await visibleEntryWebhook(deps, logId);
        const body = await deps.storage.bodies.getBody(logId);
        const headers = {
            'Content-Type': body.contentType || FALLBACK_TYPE[body.kind],
            'X-Content-Type-Options': 'nosniff',
            'Content-Security-Policy': "sandbox; default-src 'none'",
            'Content-Disposition': 'inline',
        };
        // A blob holds the bytes as received: offloaded bodies, and originals a customScript replaced.
        if (body.blobKey) {
            const blob = await deps.blobs.read(body.blobKey);
            res.writeHead(200, { ...headers, 'Content-Length': blob.size });
            await pipeline(blob.stream, res).catch(() => res.destroy());
            return;
        }
        const raw = body.raw ?? Buffer.alloc(0);
        res.writeHead(200, { ...headers, 'Content-Length': raw.length });
        res.end(raw);
    };
}
