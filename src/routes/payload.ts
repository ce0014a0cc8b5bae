import { pipeline } from 'node:stream/promises';
import type { AppDeps } from './deps.js';
import { Router, type Request, type Response } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../storage/blob-store.js';
import type { BodyKind, StoredBody } from '../storage/types.js';
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

/** Headers that keep captured content inert in a browser: never sniffed, never run (a sandbox that allows nothing). */
export const INERT_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "sandbox; default-src 'none'" } as const;

/**
 * The bytes of a stored body as received: a blob holds them for offloaded bodies and for originals a
 * customScript replaced (streamed, never read whole), the row for the rest.
 */
export async function storedBytes(blobs: BlobStore, body: StoredBody): Promise<{ stream: Readable; size: number } | { raw: Buffer }> {
    if (body.blobKey) return blobs.read(body.blobKey);
    return { raw: body.raw ?? Buffer.alloc(0) };
}

function payloadHandler(deps: AppDeps) {
    return async (req: Request<{ logId: string }>, res: Response): Promise<void> => {
        const logId = req.params.logId;
        await visibleEntryWebhook(deps, logId);
        const body = await deps.storage.bodies.getBody(logId);
        const headers = { 'Content-Type': body.contentType || FALLBACK_TYPE[body.kind], ...INERT_HEADERS, 'Content-Disposition': 'inline' };
        const bytes = await storedBytes(deps.blobs, body);
        if ('stream' in bytes) {
            res.writeHead(200, { ...headers, 'Content-Length': bytes.size });
            await pipeline(bytes.stream, res).catch(() => res.destroy());
            return;
        }
        res.writeHead(200, { ...headers, 'Content-Length': bytes.raw.length });
        res.end(bytes.raw);
    };
}
