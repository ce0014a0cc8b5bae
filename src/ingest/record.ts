import type { NewEvent } from '../storage/types.js';
import { jsonBody, type IngestContext } from './context.js';

const REDACTED = '[REDACTED]';
const MASKED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

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

/** The query string as JSON; a repeated key becomes an array. `key` is masked when authKey is set. */
export function storedQuery(search: URLSearchParams, maskKey: boolean): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
    for (const [name, value] of search) {
        const v = maskKey && name === 'key' ? REDACTED : value;
        const prev = out[name];
        out[name] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return { ...out };
}

/** The path form of the request URL, with the auth key masked. */
export function storedUrl(url: string, maskKey: boolean): string {
    if (!maskKey || !url.includes('key=')) return url;
    const q = url.indexOf('?');
    const params = new URLSearchParams(url.slice(q + 1));
    if (!params.has('key')) return url;
    params.set('key', REDACTED);
    return `${url.slice(0, q)}?${params.toString()}`;
}

/** Replaces the values at `body.a.b` paths of a JSON value; returns whether anything changed. */
export function redactPaths(value: unknown, paths: readonly string[]): boolean {
    let changed = false;
    for (const path of paths) {
        const keys = path.split('.').slice(1);
        let node: unknown = value;
        for (let i = 0; i < keys.length && node !== null && typeof node === 'object'; i++) {
            const key = keys[i]!;
            if (!Object.prototype.hasOwnProperty.call(node, key)) break;
            if (i === keys.length - 1) {
                (node as Record<string, unknown>)[key] = REDACTED;
                changed = true;
            } else node = (node as Record<string, unknown>)[key];
        }
    }
    return changed;
}

/** Builds the stored event from a finished context. */
export function buildEvent(ctx: IngestContext, processingTime: number): NewEvent {
    const { input } = ctx.deps.config;
    const maskKey = input.authKey !== undefined;
    if (input.redactBodyPaths.length > 0 && ctx.body.kind === 'json' && redactPaths(jsonBody(ctx), input.redactBodyPaths)) {
        // The redacted form is all that is kept: the secret never reaches storage.
        ctx.body.raw = Buffer.from(JSON.stringify(jsonBody(ctx)));
        ctx.body.size = ctx.body.raw.length;
        ctx.meta.redacted = true;
    }
    const { req, response } = ctx;
    const event: NewEvent = {
        id: ctx.logId,
        webhookId: ctx.webhookId,
        timestamp: ctx.receivedAt,
        method: (req.method ?? 'GET').toUpperCase(),
        statusCode: response.status,
        size: ctx.body.size,
        processingTime,
        requestId: ctx.requestId,
        requestUrl: storedUrl(req.url ?? '/', maskKey),
        contentType: String(req.headers['content-type'] ?? ''),
        remoteIp: ctx.clientIp,
        userAgent: String(req.headers['user-agent'] ?? ''),
        headers: storedHeaders(req.headers, input.maskSensitiveData),
        query: storedQuery(ctx.search, maskKey),
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
    if (Object.keys(ctx.meta).length > 0) event.meta = ctx.meta;
    return event;
}
