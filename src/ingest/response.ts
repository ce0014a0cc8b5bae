import type { InputConfig } from '../config/index.js';
import { errorBody } from '../http/respond.js';
import type { IngestContext, PreparedResponse } from './context.js';
import { hasHeader } from '../lib/headers.js';
import type { AnswerPick } from '../webhooks/answer.js';
import type { AnswerSpec } from '../storage/types.js';
import type { AnswerTemplates } from '../webhooks/answer-templates.js';
import { rateLimitHeaders, type RateDecision } from '../webhooks/rate-window.js';
import { renderHeader, renderTemplate, type TemplateScope } from '../webhooks/template-render.js';

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

/**
 * The answer for a request stopped at step 5 or later: the error JSON, stored with the event. The
 * error's headers (Retry-After, Connection: close) join `extraHeaders`, the service's own, because
 * the merge drops a framing header only when it comes from configuration.
 */
export function errorResponse(ctx: IngestContext, error: unknown): PreparedResponse {
    const { status, body, headers } = errorBody(error, ctx.requestId);
    // The answer is the error's, not a rule's.
    delete ctx.answeredBy;
    ctx.extraHeaders = { ...ctx.extraHeaders, ...headers };
    return { status, headers: {}, body };
}

// The run's defaults with one webhook answer's fields over them, worked out once per answer.
const effectiveInputOf = new WeakMap<object, Readonly<InputConfig>>();
function effectiveInput(input: Readonly<InputConfig>, answer: Readonly<AnswerSpec>): Readonly<InputConfig> {
    let effective = effectiveInputOf.get(answer);
    if (!effective) {
        const body = answer.body === undefined ? input.defaultResponseBody : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        effective = Object.freeze({
            ...input,
            defaultResponseCode: answer.statusCode ?? input.defaultResponseCode,
            defaultResponseBody: body,
            defaultResponseHeaders: answer.headers ?? input.defaultResponseHeaders,
        });
        effectiveInputOf.set(answer, effective);
    }
    return effective;
}

/** The 429 of a webhook's simulated rate limit (`response.rateLimit`); `__status` does not lift it. */
function rateLimited(rate: RateDecision): PreparedResponse {
    const message = `Rate limit of ${rate.limit} requests per ${rate.perSeconds} s exceeded (simulated by this webhook's response.rateLimit)`;
    return { status: 429, headers: rateLimitHeaders(rate), body: { status: 429, error: 'Too Many Requests', message, retryAfterSeconds: rate.resetSeconds } };
}

const JSON_MEDIA = /^[^;]*[/+]json\s*(;|$)/i;

/** The configured Content-Type among `headers` (any letter case), if any. */
function contentTypeOf(headers: Readonly<Record<string, string>>): string | undefined {
    for (const name in headers) if (name.toLowerCase() === 'content-type') return headers[name];
    return undefined;
}

/**
 * Renders the answer's templates into `response`: the body when it is the answer's own (not an
 * injected failure's message), as JSON content when the configured Content-Type is JSON (or, with
 * none, when the template is a JSON object or array), and each templated header value.
 */
function renderInto(response: PreparedResponse, templates: AnswerTemplates, effective: Readonly<InputConfig>, scope: TemplateScope): void {
    if (templates.body && response.body === effective.defaultResponseBody) {
        const configured = contentTypeOf(effective.defaultResponseHeaders);
        const json = configured === undefined ? templates.bodyLooksJson : JSON_MEDIA.test(configured);
        if (configured === undefined) response.headers['Content-Type'] = json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
        response.body = renderTemplate(templates.body, scope, json).text;
    }
    for (const [name, template] of templates.headers) if (Object.hasOwn(response.headers, name)) response.headers[name] = renderHeader(template, scope);
}

/**
 * The answer of a webhook with its own `response`: a 429 when its simulated rate limit has no room;
 * else its rule's or step's status, body and headers over the run's defaults, templates rendered
 * (`scope` gives what they read); an injected failure answers `failureStatusCode` with the built-in
 * error message; `__status` still sets the status; `retryAfterSeconds` adds Retry-After to a 429 or 503.
 */
export function webhookResponse(input: Readonly<InputConfig>, pick: AnswerPick, override: number | undefined, webhookId: string, scope?: () => TemplateScope): PreparedResponse {
    if (pick.rate && !pick.rate.allowed) return rateLimited(pick.rate);
    const effective = effectiveInput(input, pick.answer);
    const response = pick.failed
        ? defaultResponse({ ...effective, defaultResponseBody: BUILTIN_BODY }, override ?? pick.failureStatusCode, webhookId)
        : defaultResponse(effective, override ?? effective.defaultResponseCode, webhookId);
    if (pick.templates && scope && !pick.failed) renderInto(response, pick.templates, effective, scope());
    if (pick.rate) Object.assign(response.headers, rateLimitHeaders(pick.rate));
    // A Retry-After among the answer's own headers is the user's word and stays the only one.
    if (pick.retryAfterSeconds !== undefined && (response.status === 429 || response.status === 503) && !hasHeader(response.headers, 'retry-after')) {
        response.headers['Retry-After'] = String(pick.retryAfterSeconds);
    }
    return response;
}
