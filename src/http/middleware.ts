import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { createAuthCheck } from './auth.js';
import { clientLimitError, type ClientLimit } from './client-limit.js';
import { ctxOf } from './context.js';
import { requireJsonBody } from './json-only.js';
import { setRateHeaders } from './rate-limit.js';
import { sendError } from './respond.js';
import { createSameOriginCheck } from './same-origin.js';

/**
 * Options of every route family's Router: paths match in their exact letter case and without a
 * trailing slash (`/LOGS` and `/logs/` are 404), one spelling per resource. The app-level settings
 * do not reach a nested Router, so each family passes these.
 */
export const ROUTER_OPTIONS = { caseSensitive: true, strict: true } as const;

/** The middleware chains a route family puts in front of its handlers. */
export interface RouteGuards {
    /** Per-IP rate limit, the authKey check, then same-origin writes and JSON bodies: every protected route. */
    guarded: RequestHandler[];
    /** Per-IP rate limit, same-origin writes and JSON bodies: the probes. */
    limited: RequestHandler[];
    /** Ends every route's chain: 405 for a method the route does not register (see createNotAllowed). */
    notAllowed: RequestHandler;
}

/** The per-client-IP limit of management and probe routes: counts every request that reaches it. */
export function createRateLimit(limit: ClientLimit): RequestHandler {
    return (_req, res, next) => {
        const ctx = ctxOf(res);
        res.setHeader('X-Request-Id', ctx.requestId);
        const decision = limit.hit(ctx.clientIp);
        if (limit.enabled) setRateHeaders(res, decision);
        if (!decision.allowed) throw clientLimitError(decision);
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

/**
 * Every chain, sharing one limiter (the one ingest's refusals count against too), so a client's
 * count covers every route. The limit comes first: a client over it learns nothing about its key.
 * Origin and media type come after the key, so they tell a stranger nothing a 401 does not.
 */
export function createGuards(options: { limit: ClientLimit; authKey: string | undefined; publicBaseUrl: string | undefined }): RouteGuards {
    const limit = createRateLimit(options.limit);
    const sameOrigin = createSameOriginCheck(options.publicBaseUrl);
    // One layer for both checks: each Express layer costs a dispatch on every request.
    const writes: RequestHandler = (req, res, next) => sameOrigin(req, res, () => requireJsonBody(req, res, next));
    return {
        guarded: [limit, createAuth(options.authKey), writes],
        limited: [limit, writes],
        notAllowed: createNotAllowed(limit),
    };
}

interface RouteShape {
    methods?: Record<string, boolean>;
    stack?: { handle: unknown }[];
}

/**
 * Builds the end of a route's chain: any method the route does not register gets 405 with an `Allow`
 * header. The request counts against the client's limit first (429 past it), on every route, so
 * probing methods costs like guessing keys; on a protected route the key is checked next (401), so a
 * 405 never tells a stranger the route exists.
 */
function createNotAllowed(limit: RequestHandler): RequestHandler {
    return (req, res) => {
        // Both throw to refuse (429, 401); otherwise they call back and the 405 follows.
        limit(req, res, () => undefined);
        const route = req.route as RouteShape | undefined;
        const auth = route?.stack?.find((layer) => authHandlers.has(layer.handle as RequestHandler));
        if (auth) (auth.handle as RequestHandler)(req, res, () => undefined);
        const allowed = Object.keys(route?.methods ?? {})
            .filter((m) => m !== '_all')
            .map((m) => m.toUpperCase());
        throw new AppError(405, `Method ${req.method} is not allowed on ${ctxOf(res).pathname}`, { allowed }, { Allow: allowed.join(', ') });
    };
}

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
