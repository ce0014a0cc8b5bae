import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every handler gets besides req and res. */
export interface RequestContext {
    requestId: string;
    pathname: string;
    search: URLSearchParams;
    params: Record<string, string>;
    clientIp: string;
}

/** A route handler. Throwing (or rejecting) hands the error to the one error mapping. */
export type Handler = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => void | Promise<void>;

interface Route {
    methods: Set<string> | 'ANY';
    parts: string[];
    /** The last part is `*`: any deeper path matches too. */
    prefix: boolean;
    handler: Handler;
}

/** A small path router: literal segments, `:name` parameters and a trailing `*`. */
export class Router {
    private readonly routes: Route[] = [];

    /** Registers `handler` for `methods` ('ANY' for all) on a pattern such as `/logs/:logId`. */
    add(methods: string[] | 'ANY', pattern: string, handler: Handler): this {
        const parts = pattern.split('/').filter(Boolean);
        const prefix = parts[parts.length - 1] === '*';
        if (prefix) parts.pop();
        this.routes.push({ methods: methods === 'ANY' ? 'ANY' : new Set(methods), parts, prefix, handler });
        return this;
    }

    /** Finds the route for a request, with its params; `allowed` lists methods when only the path matched. */
    match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } | { allowed: string[] } | undefined {
        const segments = pathname.split('/').filter(Boolean);
        const allowed: string[] = [];
        for (const route of this.routes) {
            const params = matchParts(route, segments);
            if (!params) continue;
            if (route.methods === 'ANY' || route.methods.has(method)) return { handler: route.handler, params };
            allowed.push(...route.methods);
        }
        return allowed.length ? { allowed } : undefined;
    }
}

function matchParts(route: Route, segments: string[]): Record<string, string> | undefined {
    if (segments.length < route.parts.length || (!route.prefix && segments.length !== route.parts.length)) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < route.parts.length; i++) {
        const part = route.parts[i]!;
        const segment = segments[i]!;
        if (part.startsWith(':')) {
            try {
                params[part.slice(1)] = decodeURIComponent(segment);
            } catch {
                return undefined;
            }
        } else if (part !== segment) return undefined;
    }
    return params;
}
