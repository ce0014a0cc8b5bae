import { STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import type { ScriptInput } from '../sandbox/runner.js';
import { jsonBody, type IngestContext } from './context.js';
import { storedRequest } from './record.js';
import { answerHeaderProblem } from '../lib/answer-headers.js';
import { headerValue, setHeader } from '../lib/headers.js';

/** `HTTP_STATUS`: UPPER_SNAKE reason phrases to codes, e.g. `HTTP_STATUS.ACCEPTED === 202`. */
export const HTTP_STATUS: Record<string, number> = Object.freeze(
    Object.fromEntries(
        Object.entries(STATUS_CODES).map(([code, phrase]) => [String(phrase).toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, ''), Number(code)]),
    ),
);

/** Event fields a script may read but not change in storage: identity, timing and verification. */
const FIXED = new Set(['id', 'webhookId', 'timestamp', 'method', 'requestUrl', 'contentType', 'remoteIp', 'userAgent', 'size', 'bodyEncoding',
    'signatureValid', 'signatureProvider', 'signatureError', 'statusCode', 'responseBody', 'responseHeaders', 'headers', 'query', 'body', 'form', 'formError']);

/** The body as the API shows it: JSON as a value, text as a string, bytes as base64. */
function bodyView(ctx: IngestContext): { body: unknown; bodyEncoding?: 'base64' } {
    const { kind, raw, size } = ctx.body;
    if (kind === 'json') return { body: jsonBody(ctx) };
    if (kind === 'binary') return { body: (raw ?? Buffer.alloc(0)).toString('base64'), bodyEncoding: 'base64' };
    if (kind === 'offloaded') return { body: { offloaded: true, size } };
    return { body: kind === 'empty' ? '' : (raw ?? Buffer.alloc(0)).toString('utf8') };
}

/** What the script sees: `event` as it would be stored and a copy of the request (masked alike). */
export function scriptInput(ctx: IngestContext): ScriptInput {
    const { method, requestUrl: url, contentType, remoteIp, userAgent, headers, query } = storedRequest(ctx);
    const event: Record<string, unknown> = {
        id: ctx.logId,
        webhookId: ctx.webhookId,
        timestamp: new Date(ctx.receivedAt).toISOString(),
        method,
        requestUrl: url,
        contentType,
        remoteIp,
        userAgent,
        size: ctx.body.size,
        headers,
        query,
        ...bodyView(ctx),
        statusCode: ctx.response.status,
        responseBody: Buffer.isBuffer(ctx.response.body) ? ctx.response.body.toString('utf8') : ctx.response.body,
        responseHeaders: ctx.response.headers,
    };
    if (ctx.signature) Object.assign(event, { signatureValid: ctx.signature.valid, signatureProvider: ctx.signature.provider, signatureError: ctx.signature.error ?? null });
    // A form's description as it will be stored (masked and redacted); the script reads it, never changes it.
    if (ctx.form) Object.assign(event, ctx.form.error === undefined ? { form: ctx.form.form } : { form: ctx.form.form, formError: ctx.form.error });
    // The body is sent once: the sandbox copies event.body (and bodyEncoding) into the frozen req.
    const reqCopy = { method, url, path: url.split('?')[0], headers, query, ip: remoteIp };
    return { event, req: reqCopy, status: HTTP_STATUS };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Applies `event.statusCode`, `responseBody` and `responseHeaders` to the answer; returns problems. */
export function applyAnswer(ctx: IngestContext, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
    const problems: string[] = [];
    const status = after.statusCode;
    if (!same(status, before.statusCode)) {
        if (typeof status === 'number' && Number.isInteger(status) && status >= 200 && status <= 599) ctx.response.status = status;
        else problems.push('event.statusCode must be an integer 200-599; ignored');
    }
    let headers = ctx.response.headers;
    if (!same(after.responseHeaders, before.responseHeaders)) {
        if (isObject(after.responseHeaders)) {
            headers = {};
            for (const [name, value] of Object.entries(after.responseHeaders)) {
                const refused = answerHeaderProblem(name);
                if (refused !== undefined) {
                    problems.push(`event.responseHeaders.${name} ${refused}; dropped`);
                    continue;
                }
                try {
                    validateHeaderName(name);
                    validateHeaderValue(name, String(value));
                    headers[name] = String(value);
                } catch {
                    problems.push(`event.responseHeaders.${name} is not a valid header; dropped`);
                }
            }
        } else problems.push('event.responseHeaders must be an object; ignored');
    }
    if (!same(after.responseBody, before.responseBody) && after.responseBody !== undefined) {
        ctx.response.body = after.responseBody;
        // The configured Content-Type described the configured body: unless the script chose
        // another one, a structured body goes out as JSON.
        if (typeof after.responseBody !== 'string' && headerValue(headers, 'content-type') === headerValue(ctx.response.headers, 'content-type')) {
            headers = { ...headers };
            setHeader(headers, 'Content-Type', 'application/json; charset=utf-8');
        }
    }
    ctx.response.headers = headers;
    return problems;
}

/** A header value a script set, as stored: a string or a list of strings (numbers and booleans as text). */
function headerText(value: unknown): string | string[] | undefined {
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) return value as string[];
    return undefined;
}

/**
 * The headers a script left, minus those no HTTP request could carry (a CR/LF or other control
 * character, a name that is not a token, a value that is not text): stored, such a header would
 * make every replay of the event fail. Each one dropped is named in `problems`.
 */
function validHeaders(headers: Record<string, unknown>, problems: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(headers)) {
        const text = headerText(value);
        try {
            if (text === undefined) throw new TypeError('not text');
            validateHeaderName(name);
            for (const v of Array.isArray(text) ? text : [text]) validateHeaderValue(name, v);
            out[name] = text;
        } catch {
            problems.push(`event.headers.${JSON.stringify(name)} is not a valid header; dropped`);
        }
    }
    return out;
}

/** Records changed `headers`, `query` and any new top-level fields as what gets stored; returns problems. */
export function applyStored(ctx: IngestContext, before: Record<string, unknown>, after: Record<string, unknown>): string[] {
    const problems: string[] = [];
    const scripted: NonNullable<IngestContext['scripted']> = {};
    if (isObject(after.headers) && !same(after.headers, before.headers)) scripted.headers = validHeaders(after.headers, problems);
    if (isObject(after.query) && !same(after.query, before.query)) scripted.query = after.query;
    const extra = Object.fromEntries(Object.entries(after).filter(([k]) => !FIXED.has(k)));
    if (Object.keys(extra).length > 0) scripted.extra = extra;
    if (Object.keys(scripted).length > 0) ctx.scripted = scripted;
    return problems;
}
