import type { InputConfig } from '../config/index.js';
import { errorBody } from '../http/respond.js';
import type { IngestContext, PreparedResponse } from './context.js';
import { hasHeader } from '../lib/headers.js';

const BUILTIN_BODY = 'OK';

/** Whether a configured body is a JSON object or array (it then goes out as application/json). */
const isJsonContainer = (text: string): boolean => {
    const t = text.trim();
    if (!(t.startsWith('{') || t.startsWith('['))) return false;
    try {
        JSON.parse(t);
        return true;
    } catch {
        return false;
    }
};

/** Reads `__status`: an integer 200–599, or undefined when absent. Throws on a bad value. */
export function statusOverride(search: URLSearchParams): number | undefined {
    const text = search.get('__status');
    if (text === null) return undefined;
    const status = Number(text);
    if (!/^\d{3}$/.test(text) || status < 200 || status > 599) return Number.NaN;
    return status;
}

/**
 * The default answer: configured status (or `__status`), body and headers. A status of 400 or more
 * with the built-in success body becomes a JSON message naming the status and the webhook.
 */
export function defaultResponse(input: Readonly<InputConfig>, status: number, webhookId: string): PreparedResponse {
    if (status >= 400 && input.defaultResponseBody === BUILTIN_BODY) {
        return { status, headers: { ...input.defaultResponseHeaders }, body: { message: `Webhook received with status ${status}`, webhookId } };
    }
    return { status, headers: { ...successHeaders(input) }, body: input.defaultResponseBody };
}

// The configured headers plus the Content-Type the configured body implies, worked out once per config.
const successHeadersOf = new WeakMap<object, Record<string, string>>();
function successHeaders(input: Readonly<InputConfig>): Record<string, string> {
    let headers = successHeadersOf.get(input);
    if (!headers) {
        headers = { ...input.defaultResponseHeaders };
        if (!hasHeader(headers, 'content-type')) {
            headers['Content-Type'] = isJsonContainer(input.defaultResponseBody) ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
        }
        successHeadersOf.set(input, headers);
    }
    return headers;
}

/** The answer for a request stopped at step 5 or later: the error JSON, stored with the event. */
export function errorResponse(ctx: IngestContext, error: unknown): PreparedResponse {
    const { status, body, headers } = errorBody(error, ctx.requestId);
    return { status, headers, body };
}
