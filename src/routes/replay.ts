import type { IncomingMessage } from 'node:http';
import { Router, type Request, type Response } from 'express';
import type { AppDeps } from './deps.js';
import { parseReplayEdit } from '../delivery/replay-edit.js';
import { createReplayer } from '../delivery/replay.js';
import { configuredSigner } from '../delivery/replay-signer.js';
import { AppError } from '../errors.js';
import { ctxOf } from '../http/context.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { sendJson } from '../http/respond.js';

/** The largest edit body accepted: an edited body may be as large as a captured one. */
const editLimit = (deps: AppDeps): number => deps.config.input.maxPayloadSize + 64 * 1024;

/** POST /replay/:webhookId/:itemId?url=: re-sends a captured event (optionally edited) to `url`. */
export function replayRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const replay = createReplayer({ ...deps, records: deps.storage.outbox }, configuredSigner(deps.config, deps.clock));
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/replay/:webhookId/:itemId')
        .post(...mw.guarded, async (req: Request<{ webhookId: string; itemId: string }>, res: Response) => {
            const { search } = ctxOf(res);
            const edit = parseReplayEdit(await readBody(req, editLimit(deps)));
            if (search.get('resign') === 'true') edit.resign = true;
            const answer = await replay({ webhookId: req.params.webhookId, itemId: req.params.itemId, url: search.get('url'), edit });
            sendJson(res, 200, answer);
        })
        .all(mw.notAllowed);
    return router;
}

/** Reads the request body up to `limit` bytes; more is refused with 413. */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) throw new AppError(413, `The replay edit body is larger than ${limit} bytes`, { limit });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) throw new AppError(413, `The replay edit body is larger than ${limit} bytes`, { limit }, { Connection: 'close' });
        chunks.push(chunk);
    }
    return Buffer.concat(chunks);
}

