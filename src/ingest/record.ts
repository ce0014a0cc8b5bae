import type { NewEvent } from '../storage/types.js';
import type { IngestContext, StoredRequest } from './context.js';
import { MASKED_HEADERS, REDACTED } from '../lib/headers.js';
import { redactBody } from './redact-body.js';
import { CredentialRule, maskUrl } from '../lib/credentials.js';
import { queryObject, type QueryObject } from '../lib/query-object.js';

/**
 * Request headers as stored: credential headers replaced when masking is on, and any header that
 * carries our authKey always. `altered` tells whether a header forwarding would send was changed.
 */
export function storedHeaders(headers: NodeJS.Dict<string | string[]>, mask: boolean, rule: CredentialRule): { headers: Record<string, unknown>; altered: boolean } {
    const out: Record<string, unknown> = {};
    let altered = false;
    for (const name in headers) {
        const value = headers[name];
        if (value === undefined) continue;
        if (rule.header(name, value, mask)) {
            out[name] = REDACTED;
            altered ||= !MASKED_HEADERS.has(name);
        } else out[name] = value;
    }
    return { headers: out, altered };
}

/**
 * The query string as JSON; a repeated key becomes an array. Credential parameters are masked.
 * `raw`, the query string as sent, lets a parameter whose raw bytes hold our key be masked too (its
 * pieces are paired with `search`'s entries: both split on `&` and skip empty pieces).
 */
export function storedQuery(search: URLSearchParams, rule: CredentialRule, raw?: string): QueryObject {
    const pieces = raw !== undefined && rule.holdsKey(raw) ? rawPairs(raw) : undefined;
    return queryObject(search, (decodedName, value, i) => {
        const [rawName, rawValue] = pieces?.[i] ?? [decodedName, value];
        const masked = rule.param(decodedName, value, rawName, rawValue);
        return [masked && rule.nameIsSecret(decodedName, rawName) ? REDACTED : decodedName, masked ? REDACTED : value];
    });
}

/** The query's non-empty pieces as sent, each split at its first `=`. */
function rawPairs(query: string): [string, string][] {
    return query.split('&').filter((piece) => piece !== '').map((piece) => {
        const eq = piece.indexOf('=');
        return eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)];
    });
}

/** What follows the first `?` of a request target, as URLSearchParams reads it (one leading `?` of it dropped). */
function rawQueryOf(url: string | undefined): string {
    const at = url?.indexOf('?') ?? -1;
    if (at < 0) return '';
    return url![at + 1] === '?' ? url!.slice(at + 2) : url!.slice(at + 1);
}

/**
 * The answer's headers as stored: one that carries our key (a CORS preflight echoes the
 * Access-Control-Request-* headers it was sent) is masked like a request header.
 */
function storedAnswerHeaders(headers: Record<string, string>, rule: CredentialRule): Record<string, string> {
    let out: Record<string, string> | undefined;
    for (const name in headers) {
        if (rule.header(name, headers[name]!, false)) (out ??= { ...headers })[name] = REDACTED;
    }
    return out ?? headers;
}

const rules = new WeakMap<object, CredentialRule>();

/** The credential rule of a run's input, built once per input (not per request). */
export function credentialRuleOf(input: { readonly authKey?: string | undefined }): CredentialRule {
    let rule = rules.get(input);
    if (!rule) rules.set(input, (rule = new CredentialRule(input.authKey)));
    return rule;
}

/** The request fields of a context as they are stored, built once per request (the script step reads them first). */
export function storedRequest(ctx: IngestContext): StoredRequest {
    if (ctx.stored) return ctx.stored;
    const { input } = ctx.deps.config;
    const rule = credentialRuleOf(input);
    const { req } = ctx;
    const { headers, altered } = storedHeaders(req.headers, input.maskSensitiveData, rule);
    return (ctx.stored = {
        method: (req.method ?? 'GET').toUpperCase(),
        requestUrl: maskUrl(req.url ?? '/', rule),
        // Read from the masked headers, so a header carrying the authKey is masked here as well.
        contentType: String(headers['content-type'] ?? ''),
        remoteIp: ctx.clientIp,
        userAgent: String(headers['user-agent'] ?? ''),
        headers,
        query: storedQuery(ctx.search, rule, rawQueryOf(req.url)),
        headersAltered: altered,
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
        responseHeaders: storedAnswerHeaders(response.headers, credentialRuleOf(input)),
        responseBody: response.body,
    };
    if (ctx.body.raw && ctx.body.kind !== 'empty') event.bodyRaw = ctx.body.raw;
    if (ctx.body.blobKey) event.blobKey = ctx.body.blobKey;
    if (ctx.answeredBy) event.answeredBy = ctx.answeredBy;
    if (ctx.form) {
        event.form = ctx.form.form;
        if (ctx.form.error !== undefined) event.formError = ctx.form.error;
    } else if (ctx.formLeft === 'store' && event.bodyRaw) {
        // The store describes it (off this thread) and sets event.form before the append resolves.
        event.formSource = { contentType: String(ctx.req.headers['content-type'] ?? ''), mask: input.maskSensitiveData };
    }
    if (ctx.signature) {
        event.signatureValid = ctx.signature.valid;
        event.signatureProvider = ctx.signature.provider;
        if (ctx.signature.error) event.signatureError = ctx.signature.error;
    }
    // The backlog can rebuild the forward from the stored event unless what is stored differs from
    // what is forwarded: a redacted body (the original is never kept) or headers a script changed.
    // Our authKey masked in a header that is forwarded makes the stored request differ too.
    if (ctx.forward) event.forward = { exact: input.redactBodyPaths.length === 0 && !ctx.scripted?.headers && !request.headersAltered };
    // Fields the custom script added to the event are kept with it.
    if (ctx.scripted?.extra) ctx.meta.script = ctx.scripted.extra;
    if (Object.keys(ctx.meta).length > 0) event.meta = ctx.meta;
    return event;
}
