import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { AppError } from './errors.js';
import { createAuthCheck } from './http/auth.js';
import { clientIp } from './http/client-ip.js';
import { RateLimiter, setRateHeaders } from './http/rate-limit.js';
import { sendError } from './http/respond.js';
import { Router, type Handler, type RequestContext } from './http/router.js';
import type { AppDeps } from './deps.js';
import { createIngestHandler } from './ingest/handler.js';
import { buildSteps } from './ingest/steps.js';
import { dashboardRoute } from './routes/dashboard.js';
import { infoRoute } from './routes/info.js';
import { logDetailRoute, logsRoute } from './routes/logs.js';
import { metricsRoute } from './routes/metrics.js';
import { openapiRoute } from './routes/openapi.js';
import { payloadRoute } from './routes/payload.js';
import { healthRoute, readyRoute } from './routes/probes.js';

const PLATFORM_PROBE = 'x-apify-container-server-readiness-probe';

/** Mounts every route and the one error mapping; returns the request listener. */
export function createApp(deps: AppDeps): RequestListener {
    const limiter = new RateLimiter(deps.config.input.rateLimitPerMinute, 60_000, deps.clock);
    const authCheck = createAuthCheck(deps.config.input.authKey);

    // Management and probe routes: per-IP limit first, then (unless a probe) the key. Ingest and
    // error answers carry X-Request-Id in their own header set (one merge less on the hot path).
    const limited = (handler: Handler): Handler => (req, res, ctx) => {
        res.setHeader('X-Request-Id', ctx.requestId);
        const decision = limiter.hit(ctx.clientIp);
        if (limiter.enabled) setRateHeaders(res, decision);
        if (!decision.allowed) {
            throw new AppError(429, `Max ${decision.limit} requests per 60s`, {}, { 'Retry-After': String(decision.retryAfter) });
        }
        return handler(req, res, ctx);
    };
    const guarded = (handler: Handler): Handler => limited((req, res, ctx) => {
        authCheck(req, ctx.search);
        return handler(req, res, ctx);
    });

    const ingest = createIngestHandler(deps, buildSteps(deps));
    const router = new Router()
        .add('ANY', '/webhook/:id', ingest)
        .add('ANY', '/webhook/:id/*', ingest)
        .add(['GET', 'HEAD'], '/', guarded(dashboardRoute(deps)))
        .add(['GET'], '/info', guarded(infoRoute(deps)))
        .add(['GET'], '/logs', guarded(logsRoute(deps)))
        .add(['GET'], '/logs/:logId', guarded(logDetailRoute(deps)))
        .add(['GET'], '/logs/:logId/payload', guarded(payloadRoute(deps)))
        .add(['GET'], '/system/metrics', guarded(metricsRoute(deps)))
        .add(['GET'], '/openapi.json', guarded(openapiRoute(deps)))
        .add(['GET'], '/health', limited(healthRoute(deps)))
        .add(['GET'], '/ready', limited(readyRoute(deps)));

    return (req: IncomingMessage, res: ServerResponse) => {
        const requestId = deps.ids.requestId();
        // While shutting down, no connection is kept alive past its current answer.
        if (!deps.readiness.accepting) res.shouldKeepAlive = false;
        const url = req.url ?? '/';
        const q = url.indexOf('?');
        const pathname = q === -1 ? url : url.slice(0, q);
        if (pathname === '/' && req.headers[PLATFORM_PROBE] !== undefined) {
            res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
            return;
        }
        const ctx: RequestContext = {
            requestId,
            pathname,
            search: new URLSearchParams(q === -1 ? '' : url.slice(q + 1)),
            params: {},
            clientIp: clientIp(req, deps.config.env.trustProxyHops),
        };
        const found = router.match(req.method ?? 'GET', pathname);
        if (!found) return sendError(res, new AppError(404, `No route for ${req.method} ${pathname}`), requestId);
        if ('allowed' in found) {
            return sendError(res, new AppError(405, `Method ${req.method} is not allowed on ${pathname}`, { allowed: found.allowed }, { Allow: found.allowed.join(', ') }), requestId);
        }
        ctx.params = found.params;
        try {
            const pending = found.handler(req, res, ctx);
            if (pending) pending.catch((error: unknown) => fail(deps, res, error, requestId));
        } catch (error) {
            fail(deps, res, error, requestId);
        }
    };
}

function fail(deps: AppDeps, res: ServerResponse, error: unknown, requestId: string): void {
    if (!(error instanceof AppError)) deps.log.error('request failed', { requestId, error: error instanceof Error ? error.stack : String(error) });
    sendError(res, error, requestId);
}

