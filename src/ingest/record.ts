import type { NewEvent } from '../storage/types.js';
import type { IngestContext } from './context.js';
import { MASKED_HEADERS, REDACTED } from '../lib/headers.js';
import { redactBody } from './redact-body.js';

/** Request headers as stored: credential values replaced when masking is on. */
export function storedHeaders(headers: NodeJS.Dict<string | string[]>, mask: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const name in headers) {
        const value = headers[name];
        if (value === undefined) continue;
        out[name] = mask && MASKED_HEADERS.has(name) ? REDACTED : value;
    }
    return out;
}

/**
 * Query parameters that carry a credential: `key` (our authKey, when one is set) and `token`, the
 * Apify API token a Standby caller may send to the platform, which is never ours to keep.
 */
const maskedParam = (name: string, maskKey: boolean): boolean => name === 'token' || (maskKey && name === 'key');

/** The query string as JSON; a repeated key becomes an array. Credential parameters are masked. */
export function storedQuery(search: URLSearchParams, maskKey: boolean): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const [name, value] of search) {
        const v = maskedParam(name, maskKey) ? REDACTED : value;
        const prev = out[name];
        out[name] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return { ...out };
}

/** The path form of the request URL, with credential parameters masked. */
export function storedUrl(url: string, maskKey: boolean): string {
    if (!(maskKey && url.includes('key=')) && !url.includes('token=')) return url;
    const q = url.indexOf('?');
    if (q < 0) return url;
    const params = new URLSearchParams(url.slice(q + 1));
    let changed = false;
    for (const name of new Set(params.keys())) {
        if (!maskedParam(name, maskKey)) continue;
        params.set(name, REDACTED);
        changed = true;
    }
    return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

/** The request as stored (credentials masked): the stored event's fields and the script's view of them. */
export interface StoredRequest {
    method: string;
    requestUrl: string;
    contentType: string;
    remoteIp: string;
    userAgent: string;
    headers: Record<string, unknown>;
    query: Record<string, string | string[]>;
}

/** The request fields of a context as they are stored, built once per request (the script step reads them first). */
export function storedRequest(ctx: IngestContext): StoredRequest {
    const { input } = ctx.deps.config;
    const maskKey = input.authKey !== undefined;
    const { req } = ctx;
    return (ctx.stored ??= {
        method: (req.method ?? 'GET').toUpperCase(),
        requestUrl: storedUrl(req.url ?? '/', maskKey),
        contentType: String(req.headers['content-type'] ?? ''),
        remoteIp: ctx.clientIp,
        userAgent: String(req.headers['user-agent'] ?? ''),
        headers: storedHeaders(req.headers, input.maskSensitiveData),
        query: storedQuery(ctx.search, maskKey),
    });
}

/** Builds the stored event from a finished context. */
export function buildEvent(ctx: IngestContext, processingTime: number): NewEvent {
    const { input } = ctx.deps.config;
    redactBody(ctx, input.redactBodyPaths);
    const { response, scripted } = ctx;
    const request = storedRequest(ctx);
    const event: NewEvent = {
        id: ctx.logId,
        webhookId: ctx.webhookId,
        timestamp: ctx.receivedAt,
        method: request.method,
        statusCode: response.status,
        size: ctx.body.size,
        processingTime,
        requestId: ctx.requestId,
        requestUrl: request.requestUrl,
        contentType: request.contentType,
        remoteIp: request.remoteIp,
        userAgent: request.userAgent,
        // Headers or query a script changed are stored as it left them.
        headers: scripted?.headers ?? request.headers,
        query: scripted?.query ?? request.query,
        bodyKind: ctx.body.kind,
        responseHeaders: response.headers,
        responseBody: response.body,
    };
    if (ctx.body.raw && ctx.body.kind !== 'empty') event.bodyRaw = ctx.body.raw;
    if (ctx.body.blobKey) event.blobKey = ctx.body.blobKey;
    if (ctx.signature) {
        event.signatureValid = ctx.signature.valid;
        event.signatureProvider = ctx.signature.provider;
        if (ctx.signature.error) event.signatureError = ctx.signature.error;
    }
    // The backlog can rebuild the forward from the stored event unless what is stored differs from
    // what is forwarded: a redacted body (the original is never kept) or headers a script changed.
    if (ctx.forward) event.forward = { exact: input.redactBodyPaths.length === 0 && !ctx.scripted?.headers };
    // Fields the custom script added to the event are kept with it.
    if (ctx.scripted?.extra) ctx.meta.script = ctx.scripted.extra;
    if (Object.keys(ctx.meta).length > 0) event.meta = ctx.meta;
    return event;
}
