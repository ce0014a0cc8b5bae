import { AppError, StoreUnavailableError } from '../errors.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../http/context.js';
import { sendError } from '../http/respond.js';
import type { IngestContext, IngestDeps, Step } from './context.js';
import { runSteps } from './pipeline.js';
import { buildEvent } from './record.js';
import { errorResponse } from './response.js';
import { finalHeaders, sendPrepared } from './send.js';
import { ClientAbortedError } from './steps/read-body.js';

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Captures one request sent to `/webhook/:id`. */
export type IngestHandler = (req: IncomingMessage, res: ServerResponse, rctx: RequestContext, webhookId: string) => Promise<void>;

/** The handler of ANY /webhook/:id: runs the steps, stores the event durably, then answers. */
export function createIngestHandler(deps: IngestDeps, steps: readonly Step[]): IngestHandler {
    return async (req, res, rctx, webhookId) => {
        const ctx: IngestContext = {
            req,
            res,
            deps,
            requestId: rctx.requestId,
            logId: deps.ids.logId(),
            startedAt: deps.clock.monotonic(),
            receivedAt: deps.clock.now(),
            webhookId,
            search: rctx.search,
            clientIp: rctx.clientIp,
            capturing: false,
            body: { kind: 'empty', size: 0 },
            response: { status: 200, headers: {}, body: '' },
            extraHeaders: NO_HEADERS,
            meta: {},
        };
        try {
            await runSteps(ctx, steps);
        } catch (error) {
            if (error instanceof ClientAbortedError) return;
            if (!ctx.capturing) {
                deps.metrics.ingestRejected++;
                sendError(res, error, ctx.requestId);
                return;
            }
            if (!(error instanceof AppError)) deps.log.error('ingest step failed', { requestId: ctx.requestId, error: String(error) });
            ctx.response = errorResponse(ctx, error);
        }
        await commitAndAnswer(ctx);
    };
}

async function commitAndAnswer(ctx: IngestContext): Promise<void> {
    const { deps } = ctx;
    const processingTime = Math.round((deps.clock.monotonic() - ctx.startedAt) * 1000) / 1000;
    ctx.response.headers = finalHeaders(ctx.req, ctx.response, ctx.requestId, ctx.extraHeaders);
    const event = buildEvent(ctx, processingTime);
    try {
        await deps.events.append(event);
    } catch (error) {
        deps.metrics.storageFailures++;
        deps.log.error('event could not be stored', { requestId: ctx.requestId, error: String(error) });
        // The database is away (a shared store): its own answer says when to retry.
        const answer = error instanceof StoreUnavailableError ? error : new AppError(503, 'The event could not be stored; retry the delivery', {}, { 'Retry-After': '30' });
        sendError(ctx.res, answer, ctx.requestId);
        return;
    }
    deps.metrics.recordIngest(event.statusCode, processingTime);
    deps.publish(event);
    if (ctx.forward) deps.forwarder?.committed(ctx.forward);
    if (ctx.beforeAnswer) await ctx.beforeAnswer();
    sendPrepared(ctx);
}
