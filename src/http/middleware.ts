import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { clientRateKey } from '../lib/ip.js';
import type { Logger } from '../lib/log.js';
import { createAuthCheck } from './auth.js';
import { ctxOf } from './context.js';
import { RateLimiter, setRateHeaders } from './rate-limit.js';
import { sendError } from './respond.js';

/**
 * Options of every route family's Router: paths match in their exact letter case and without a
 * trailing slash (`/LOGS` and `/logs/` are 404), one spelling per resource. The app-level settings
 * do not reach a nested Router, so each family passes these.
 */
export const ROUTER_OPTIONS = { caseSensitive: true, strict: true } as const;

/** The middleware chains a route family puts in front of its handlers. */
export interface RouteGuards {
    /** Per-IP rate limit, then the authKey check: every protected route. */
    guarded: RequestHandler[];
    /** Per-IP rate limit only: the probes. */
    limited: RequestHandler[];
}

/** The per-client-IP limit of management and probe routes, built once. */
export function createRateLimit(limit: number, clock: Clock): RequestHandler {
    const limiter = new RateLimiter(limit, 60_000, clock);
    return (_req, res, next) => {
        const ctx = ctxOf(res);
        res.setHeader('X-Request-Id', ctx.requestId);
        // IPv6 clients count by their /64 (see clientRateKey).
        const decision = limiter.hit(clientRateKey(ctx.clientIp));
        if (limiter.enabled) setRateHeaders(res, decision);
        if (!decision.allowed) {
            throw new AppError(429, `Max ${decision.limit} requests per 60s`, {}, { 'Retry-After': String(decision.retryAfter) });
        }
        next();
    };
}

// The auth handlers built by createAuth: a route whose chain holds one is a protected route.
const authHandlers = new WeakSet<RequestHandler>();

/** The authKey check (Bearer header or `?key=`), built once. */
export function createAuth(authKey: string | undefined): RequestHandler {
    const check = createAuthCheck(authKey);
    const handler: RequestHandler = (req, res, next) => {
        check(req, ctxOf(res).search);
        next();
    };
    authHandlers.add(handler);
    return handler;
}

/** Both chains, sharing one limiter so a client's count covers every route. */
export function createGuards(options: { rateLimitPerMinute: number; authKey: string | undefined; clock: Clock }): RouteGuards {
    const limit = createRateLimit(options.rateLimitPerMinute, options.clock);
    return { guarded: [limit, createAuth(options.authKey)], limited: [limit] };
}

interface RouteShape {
    methods?: Record<string, boolean>;
    stack?: { handle: unknown }[];
}

/**
 * Ends a route's chain: any method the route does not register gets 405 with an `Allow` header. On a
 * protected route the key is checked first (401), so a 405 never tells a stranger the route exists.
 */
export const methodNotAllowed: RequestHandler = (req, res) => {
    const route = req.route as RouteShape | undefined;
    const auth = route?.stack?.find((layer) => authHandlers.has(layer.handle as RequestHandler));
    // The check throws 401 without the key; with it, it calls back and the 405 follows.
    if (auth) (auth.handle as RequestHandler)(req, res, () => undefined);
    const allowed = Object.keys(route?.methods ?? {})
        .filter((m) => m !== '_all')
        .map((m) => m.toUpperCase());
    throw new AppError(405, `Method ${req.method} is not allowed on ${ctxOf(res).pathname}`, { allowed }, { Allow: allowed.join(', ') });
};

/** The app's last handler: no route matched. */
export const notFound: RequestHandler = (req, res) => {
    throw new AppError(404, `No route for ${req.method} ${ctxOf(res).pathname}`);
};

/** The one error middleware: every error of the management API goes through the shared mapping. */
export function errorMiddleware(log: Logger): ErrorRequestHandler {
    return (error: unknown, _req, res, _next) => {
        const requestId = ctxOf(res).requestId;
        const mapped = fromHttpError(error);
        if (!(mapped instanceof AppError)) log.error('request failed', { requestId, error: mapped instanceof Error ? mapped.stack : String(mapped) });
        sendError(res, mapped, requestId);
    };
}

/** Errors raised by Express itself (a malformed %-escape in a path parameter) carry a 4xx `status`. */
function fromHttpError(error: unknown): unknown {
    if (error instanceof AppError || !(error instanceof Error)) return error;
    const status = (error as Error & { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return new AppError(status, status === 400 ? 'Malformed request path' : error.message);
    return error;
}
