import type { AppDeps } from './deps.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { encodeCursor } from '../http/logs-query/cursor.js';
import { parseFilterSet } from '../filters/set.js';
import { PAGING_PARAMS, parseLogsRequest } from '../http/parse-logs-query.js';
import { Router, type Request, type Response } from 'express';
import { ctxOf } from '../http/context.js';
import { sendHar, takeFormat } from '../http/har.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { sendJson } from '../http/respond.js';
import type { LogEntry } from '../storage/types.js';
import { deleteCapturesById, deleteMatching } from '../webhooks/captures.js';

/** GET and DELETE /logs and /logs/:logId. */
export function logsRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/logs').get(...mw.guarded, listHandler(deps)).delete(...mw.guarded, deleteMatchingHandler(deps)).all(mw.notAllowed);
    router.route('/logs/:logId').get(...mw.guarded, detailHandler(deps)).delete(...mw.guarded, deleteOneHandler(deps)).all(mw.notAllowed);
    return router;
}

/** GET /logs: filtered, sorted summaries, paginated by offset (with a total) or by keyset cursor. */
function listHandler(deps: AppDeps) {
    return async (_req: Request, res: Response): Promise<void> => {
        const ctx = ctxOf(res);
        const base = deps.baseUrl();
        const { format, search } = takeFormat(ctx.search);
        if (format === 'har') return sendHar({ ...deps, records: deps.storage.outbox }, res, search, abortOnClose(res));
        const { query, echo } = parseLogsRequest(search);
        const page = await deps.events.query(query, abortOnClose(res));
        const items = page.items.map((item) => ({ ...item, detailUrl: `${base}/logs/${encodeURIComponent(item.id)}` }));
        // The next page repeats every parameter as given, with only offset or cursor moved on.
        const pageUrl = (name: string, value: string): string => {
            const next = new URLSearchParams(ctx.search);
            next.set(name, value);
            return `${base}/logs?${next.toString()}`;
        };
        if (query.cursor !== undefined) {
            const nextCursor = page.next ? encodeCursor(page.next, query.sort) : null;
            sendJson(res, 200, { count: items.length, items, nextCursor, nextPageUrl: nextCursor === null ? null : pageUrl('cursor', nextCursor) });
            return;
        }
        const total = page.total ?? 0;
        const nextOffset = query.offset + items.length < total && items.length > 0 ? query.offset + items.length : null;
        sendJson(res, 200, {
            filters: { limit: query.limit, offset: query.offset, sort: query.sort, ...echo },
            count: items.length,
            total,
            items,
            nextOffset,
            nextPageUrl: nextOffset === null ? null : pageUrl('offset', String(nextOffset)),
        });
    };
}

/** A signal that fires when the client goes away before its answer was written, so its query stops. */
export function abortOnClose(res: Response): AbortSignal {
    const controller = new AbortController();
    res.once('close', () => {
        if (!res.writableFinished) controller.abort();
    });
    return controller.signal;
}

/** Looks up an entry that the caller may see: unknown ids and expired webhooks are both 404. */
export async function visibleEntryWebhook(deps: AppDeps, logId: string): Promise<string> {
    const webhookId = await deps.events.webhookOf(logId);
    if (webhookId === undefined) throw new NotFoundError(`Log entry '${logId}' not found`);
    if (!deps.webhooks.getActive(webhookId)) throw new NotFoundError(`Log entry '${logId}' not found: its webhook has expired`);
    return webhookId;
}

/** GET /logs/:logId: one full entry, optionally sparse with `fields=a,b`. */
function detailHandler(deps: AppDeps) {
    return async (req: Request<{ logId: string }>, res: Response): Promise<void> => {
        const ctx = ctxOf(res);
        const logId = req.params.logId;
        await visibleEntryWebhook(deps, logId);
        const entry = await deps.events.getEntry(logId);
        const fields = ctx.search.get('fields');
        if (fields === null || fields.trim() === '') return sendJson(res, 200, entry);
        const wanted = fields.split(',').map((f) => f.trim()).filter(Boolean);
        const unknown = wanted.filter((f) => !Object.prototype.hasOwnProperty.call(entry, f) && !OPTIONAL_FIELDS.has(f));
        if (unknown.length) throw new BadRequestError(`Parameter 'fields' names unknown fields: ${unknown.join(', ')}`);
        const sparse: Record<string, unknown> = {};
        for (const f of wanted) if (Object.prototype.hasOwnProperty.call(entry, f)) sparse[f] = entry[f as keyof LogEntry];
        sendJson(res, 200, sparse);
    };
}

// Fields only some events have (`form`: a form body's description), which a sparse read may still name.
const OPTIONAL_FIELDS = new Set(['bodyEncoding', 'meta', 'answeredBy', 'form', 'formError']);

/** DELETE /logs/:logId: the capture, its payload, replay history and forwarding entries are deleted. */
function deleteOneHandler(deps: AppDeps) {
    return async (req: Request<{ logId: string }>, res: Response): Promise<void> => {
        await visibleEntryWebhook(deps, req.params.logId);
        if ((await deleteCapturesById(deps, [req.params.logId])) === 0) throw new NotFoundError(`Log entry '${req.params.logId}' not found`);
        res.writeHead(204).end();
    };
}

/** DELETE /logs?<filters>: every capture matching the filters of GET /logs (paging and order ignored); at least one is required. */
function deleteMatchingHandler(deps: AppDeps) {
    return async (_req: Request, res: Response): Promise<void> => {
        const { filters } = parseFilterSet(ctxOf(res).search, { what: 'DELETE /logs', skip: PAGING_PARAMS });
        if (filters.length === 0) throw new BadRequestError('DELETE /logs needs at least one filter (as GET /logs takes them); it never deletes everything');
        sendJson(res, 200, { deleted: await deleteMatching(deps, filters) });
    };
}
