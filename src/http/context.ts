import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every request carries besides req and res, worked out once by the request listener. */
export interface RequestContext {
    requestId: string;
    pathname: string;
    search: URLSearchParams;
    clientIp: string;
}

// Keyed by the response object, so Express's own prototype swap of req/res cannot lose it.
const contexts = new WeakMap<ServerResponse, RequestContext>();

/** Attaches the context of a request to its response. */
export function bindContext(res: ServerResponse, ctx: RequestContext): void {
    contexts.set(res, ctx);
}

/** The context of a request, as bound by the request listener. */
export function ctxOf(res: ServerResponse): RequestContext {
    const ctx = contexts.get(res);
    if (!ctx) throw new Error('request context missing: the response did not pass through createApp');
    return ctx;
}

/** Splits a raw request URL into its path and query string. */
export function splitUrl(req: IncomingMessage): { pathname: string; query: string } {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    return q === -1 ? { pathname: url, query: '' } : { pathname: url.slice(0, q), query: url.slice(q + 1) };
}
