import type { IncomingMessage } from 'node:http';
import { Router, type Request, type Response } from 'express';
import type { AppDeps } from './deps.js';
import type { ManagedWebhook } from '../api/webhook.js';
import { AppError, NotFoundError, validationError } from '../errors.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { sendJson } from '../http/respond.js';
import type { Webhook } from '../storage/types.js';
import { deleteMatching } from '../webhooks/captures.js';
import type { WebhookLimits } from '../webhooks/manager.js';
import { parseWebhookChange } from '../webhooks/schema.js';
import { jsonNestsDeeperThan } from '../lib/json-text.js';

/** How deep a management body may nest: an answer's JSON body needs a few levels, never thousands. */
const MAX_BODY_DEPTH = 128;

/**
 * A body holds a response with a 1 MB body and 100 sequence steps, and room for the rules that come
 * next (up to 50, with templates of up to 64 KB each). Validating one this size stays bounded
 * (webhooks/bounded-validation.ts; bench/validation.ts).
 */
const BODY_LIMIT = 8 * 1024 * 1024;

/** GET/POST /webhooks and GET/PATCH/DELETE /webhooks/:id (DECISIONS.md "Webhooks you manage"). */
export function webhookRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/webhooks')
        .get(...mw.guarded, async (_req, res) => {
            const items = [];
            for (const webhook of deps.webhooks.active()) items.push(await view(deps, webhook));
            sendJson(res, 200, { items });
        })
        .post(...mw.guarded, async (req, res) => {
            const { value, text } = await readJson(req);
            const change = parseWebhookChange('create', value, text);
            const webhook = await deps.webhooks.create(change, limitsOf(deps));
            sendJson(res, 201, await view(deps, webhook), { Location: `${deps.baseUrl()}/webhooks/${webhook.id}` });
        })
        .all(mw.notAllowed);
    router
        .route('/webhooks/:id')
        .get(...mw.guarded, async (req: Request<{ id: string }>, res: Response) => {
            sendJson(res, 200, await view(deps, activeOr404(deps, req.params.id)));
        })
        .patch(...mw.guarded, async (req: Request<{ id: string }>, res: Response) => {
            activeOr404(deps, req.params.id);
            const { value, text } = await readJson(req);
            const change = parseWebhookChange('patch', value, text);
            const webhook = await deps.webhooks.update(req.params.id, change, limitsOf(deps));
            if (!webhook) throw notFound(req.params.id);
            sendJson(res, 200, await view(deps, webhook));
        })
        .delete(...mw.guarded, async (req: Request<{ id: string }>, res: Response) => {
            const { id } = req.params;
            // Ingest answers 404 from here on; then its captures and payloads go.
            if (!(await deps.webhooks.remove(id))) throw notFound(id);
            await deleteMatching(deps, [{ kind: 'exact', field: 'webhookId', value: id }]);
            res.writeHead(204).end();
        })
        .all(mw.notAllowed);
    return router;
}

/** What POST and PATCH may add: the run input's maxWebhooks and the memory budget's share for answers. */
const limitsOf = (deps: AppDeps): WebhookLimits => ({ maxWebhooks: deps.config.input.maxWebhooks, answerBytes: deps.config.memory.answerBytes });

const notFound = (id: string): NotFoundError => new NotFoundError(`Webhook '${id}' not found or expired`);

function activeOr404(deps: AppDeps, id: string): Webhook {
    const webhook = deps.webhooks.getActive(id);
    if (!webhook) throw notFound(id);
    return webhook;
}

/** A webhook as the API shows it: `{id, url, name, createdAt, expiresAt, response, count}`. */
async function view(deps: AppDeps, webhook: Webhook): Promise<ManagedWebhook> {
    // Counted off the main thread by the query pool, which keeps the count of each filter up to date.
    const page = await deps.events.query({ filters: [{ kind: 'exact', field: 'webhookId', value: webhook.id }], sort: [{ field: 'timestamp', dir: 'desc' }], limit: 1, offset: 0 });
    return {
        id: webhook.id,
        url: `${deps.baseUrl()}/webhook/${encodeURIComponent(webhook.id)}`,
        name: webhook.name ?? null,
        createdAt: webhook.createdAt,
        expiresAt: webhook.expiresAt,
        response: webhook.response ?? null,
        count: page.total ?? 0,
    };
}

/** Reads a JSON request body (empty counts as `{}`), and its text; 400 when it is not JSON, 413 past the limit. */
export async function readJson(req: IncomingMessage): Promise<{ value: unknown; text: string }> {
    if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) throw new AppError(413, `The request body is larger than ${BODY_LIMIT} bytes`, { limit: BODY_LIMIT });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > BODY_LIMIT) throw new AppError(413, `The request body is larger than ${BODY_LIMIT} bytes`, { limit: BODY_LIMIT }, { Connection: 'close' });
        chunks.push(chunk);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim() === '') return { value: {}, text: '{}' };
    // Checked before parsing: JSON.parse of megabytes of brackets takes most of a second.
    if (jsonNestsDeeperThan(text, MAX_BODY_DEPTH)) throw validationError('The request body nests too deeply', [{ path: '(body)', message: `nests deeper than ${MAX_BODY_DEPTH} levels` }]);
    try {
        return { value: JSON.parse(text) as unknown, text };
    } catch {
        throw validationError('The request body is not valid JSON', [{ path: '(body)', message: 'is not valid JSON' }]);
    }
}
