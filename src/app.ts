import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express from 'express';
import type { AppDeps } from './routes/deps.js';
import { AppError } from './errors.js';
import { ClientLimit } from './http/client-limit.js';
import { clientIp } from './http/client-ip.js';
import { bindContext, splitUrl, type RequestContext } from './http/context.js';
import { createHostCheck } from './http/host-check.js';
import { createGuards, errorMiddleware, notFound } from './http/middleware.js';
import { sendError } from './http/respond.js';
import { createIngestHandler } from './ingest/handler.js';
import { buildSteps } from './ingest/steps.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { deliveryRoutes } from './routes/deliveries.js';
import { infoRoutes } from './routes/info.js';
import { logsRoutes } from './routes/logs.js';
import { metricsRoutes } from './routes/metrics.js';
import { openapiRoutes } from './routes/openapi.js';
import { payloadRoutes } from './routes/payload.js';
import { filesRoutes } from './routes/files.js';
import { probeRoutes } from './routes/probes.js';
import { replayRoutes } from './routes/replay.js';
import { replayJobRoutes } from './routes/replay-jobs.js';
import { streamRoutes } from './routes/stream.js';
import { webhookRoutes } from './routes/webhooks.js';

const PLATFORM_PROBE = 'x-apify-container-server-readiness-probe';
const WEBHOOK_PREFIX = '/webhook/';

/** The per-client limit (rateLimitPerMinute per 60 s) that management and ingest share. */
export function createClientLimit(deps: AppDeps): ClientLimit {
    return new ClientLimit(deps.config.input.rateLimitPerMinute, deps.clock);
}

/**
 * The Express app of the management API: the Host check, route families, then 404, then the one
 * error mapping. `limit` is the per-client limit it shares with ingest.
 */
export function createManagementApp(deps: AppDeps, limit = createClientLimit(deps)): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.set('case sensitive routing', true);
    const { env, input } = deps.config;
    // Without a key, only a laptop's own names reach the API (the platform's proxy decides names there).
    if (!env.onPlatform && !input.authKey) app.use(createHostCheck(env.publicBaseUrl));
    const guards = createGuards({ limit, authKey: input.authKey, publicBaseUrl: env.publicBaseUrl });
    app.use(dashboardRoutes(guards));
    app.use(infoRoutes(deps, guards));
    // Before /logs/:logId, which would take /logs/deliveries for an id.
    app.use(deliveryRoutes(deps, guards));
    app.use(logsRoutes(deps, guards));
    app.use(payloadRoutes(deps, guards));
    app.use(filesRoutes(deps, guards));
    app.use(metricsRoutes(deps, guards));
    app.use(openapiRoutes(deps, guards));
    app.use(probeRoutes(deps, guards));
    app.use(replayRoutes(deps, guards));
    app.use(replayJobRoutes(deps, guards));
    app.use(streamRoutes(deps, guards));
    app.use(webhookRoutes(deps, guards));
    app.use(notFound);
    app.use(errorMiddleware(deps.log));
    return app;
}

/**
 * The one request listener. Capture stays a raw node:http handler (Express's per-request cost would
 * cut ingest throughput by more than half); every other path goes to the Express app.
 */
export function createApp(deps: AppDeps): RequestListener {
    const limit = createClientLimit(deps);
    const ingest = createIngestHandler(deps, buildSteps(deps, limit));
    const management = createManagementApp(deps, limit);
    return (req: IncomingMessage, res: ServerResponse) => {
        const requestId = deps.ids.requestId();
        // While shutting down, no connection is kept alive past its current answer.
        if (!deps.readiness.accepting) res.shouldKeepAlive = false;
        const { pathname, query } = routedUrl(req);
        if (pathname === '/' && req.headers[PLATFORM_PROBE] !== undefined) {
            res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
            return;
        }
        // HTTP/1.1 requires Host (RFC 9112 §3.2); the server leaves this check to us so the 400 is JSON.
        if (req.headers.host === undefined && req.httpVersion === '1.1') {
            return sendError(res, new AppError(400, 'Missing Host header (required in HTTP/1.1)', {}, { Connection: 'close' }), requestId);
        }
        const ctx: RequestContext = { requestId, pathname, search: new URLSearchParams(query), clientIp: clientIp(req, deps.config.env.trustProxyHops) };
        if (pathname.startsWith(WEBHOOK_PREFIX)) {
            const webhookId = webhookIdOf(pathname);
            if (webhookId === undefined) return sendError(res, new AppError(404, `No route for ${req.method} ${pathname}`), requestId);
            ingest(req, res, ctx, webhookId).catch((error: unknown) => {
                if (!(error instanceof AppError)) deps.log.error('request failed', { requestId, error: error instanceof Error ? error.stack : String(error) });
                sendError(res, error, requestId);
            });
            return;
        }
        bindContext(res, ctx);
        management(req, res);
    };
}

const ABSOLUTE_FORM = /^[a-z][a-z\d+.-]*:\/\/[^/?]*/i;

/**
 * The path and query a request is routed by. An absolute-form target (`POST http://host/webhook/x`,
 * as a proxy may send) routes like its path, as Express already routes it; the stored URL keeps the
 * sender's own form.
 */
function routedUrl(req: IncomingMessage): { pathname: string; query: string } {
    const split = splitUrl(req);
    if (split.pathname.startsWith('/')) return split;
    const authority = ABSOLUTE_FORM.exec(split.pathname);
    return authority ? { pathname: split.pathname.slice(authority[0].length) || '/', query: split.query } : split;
}

/** The `:id` of `/webhook/:id[/any/sub/path]`, decoded; undefined when absent or badly escaped. */
function webhookIdOf(pathname: string): string | undefined {
    const segment = pathname.slice(WEBHOOK_PREFIX.length).split('/').find(Boolean);
    if (segment === undefined) return undefined;
    try {
        return decodeURIComponent(segment);
    } catch {
        return undefined;
    }
}
