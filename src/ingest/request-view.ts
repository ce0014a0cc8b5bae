import { randomUUID } from 'node:crypto';
import { subjectOfEvent, type FilterSubject } from '../filters/subject.js';
import type { TemplateScope } from '../webhooks/template-render.js';
import type { IngestContext } from './context.js';
import { storedRequest } from './record.js';
import { formRedacted, redactedBytes } from './redact-body.js';

// The request as it will be stored (credentials masked, redactBodyPaths applied), before the custom
// script, which may change the stored event afterwards: what rules match (as GET /logs would match
// the capture) and what templates read. Built only for a webhook whose answer needs it.

/** Body kinds the store keeps as text; the others (binary, offloaded, empty) have none to match or read. */
const TEXT_KINDS = new Set(['json', 'text']);
const NO_BYTES = new Uint8Array(0);

/** The body as it will be stored (redacted), and its size. */
interface StoredBody {
    raw: Buffer | undefined;
    size: number;
}

function storedBody(ctx: IngestContext): StoredBody {
    const { body } = ctx;
    if (!body.raw || !TEXT_KINDS.has(body.kind)) return { raw: undefined, size: body.size };
    // A fresh parse (not jsonBody's value): redaction changes the value it reads.
    const redacted = formRedacted(ctx) ?? redactedBytes(body.kind, body.raw, ctx.deps.config.input.redactBodyPaths);
    return redacted ? { raw: redacted, size: redacted.length } : { raw: body.raw, size: body.size };
}

/** What rules and templates read of one request, each built on first use and sharing the body's text. */
export interface RequestView {
    subject(): FilterSubject;
    scope(): TemplateScope;
}

/** The request's view for its answer: the filter subject (rules) and the template scope. */
export function requestView(ctx: IngestContext): RequestView {
    let subject: FilterSubject | undefined;
    let scope: TemplateScope | undefined;
    let body: StoredBody | undefined;
    const stored = (): StoredBody => (body ??= storedBody(ctx));
    return {
        subject: () => (subject ??= requestSubject(ctx, stored())),
        scope: () => (scope ??= templateScope(ctx, subject, stored)),
    };
}

/** Ingest scanned a json body as SQLite's json_valid reads it (redaction keeps it JSON); a text body was not judged. */
const bodyIsJson = (ctx: IngestContext): boolean | undefined => (ctx.body.kind === 'json' ? true : undefined);

/** The filter subject of the request, for rule conditions: the request side as stored; the answer's side is not known yet (rules cannot read it). */
function requestSubject(ctx: IngestContext, { raw, size }: StoredBody): FilterSubject {
    const request = storedRequest(ctx);
    return subjectOfEvent({
        bodyIsJson: bodyIsJson(ctx),
        id: ctx.logId,
        webhookId: ctx.webhookId,
        requestId: ctx.requestId,
        timestamp: ctx.receivedAt,
        method: request.method,
        statusCode: 0,
        size,
        processingTime: 0,
        requestUrl: request.requestUrl,
        contentType: request.contentType,
        remoteIp: request.remoteIp,
        userAgent: request.userAgent,
        headers: request.headers,
        query: request.query,
        // Without text (binary, offloaded, empty) the subject has no body to read.
        bodyKind: raw ? ctx.body.kind : 'empty',
        bodyRaw: raw ?? NO_BYTES,
        ...(ctx.form ? { form: ctx.form.form } : {}),
        responseHeaders: {},
        responseBody: null,
    });
}

/** The sub-path after `/webhook/<id>` of a stored request URL, without its query string. */
export function subPath(requestUrl: string, webhookId: string): string {
    const q = requestUrl.indexOf('?');
    const path = q < 0 ? requestUrl : requestUrl.slice(0, q);
    const prefix = `/webhook/${webhookId}`;
    return path.startsWith(prefix) ? path.slice(prefix.length) : '';
}

/** What the answer's templates read of the request; the body's text is the subject's when rules built one. */
function templateScope(ctx: IngestContext, subject: FilterSubject | undefined, stored: () => StoredBody): TemplateScope {
    const request = storedRequest(ctx);
    let body: string | null | undefined = subject?.text('body');
    let uuid: string | undefined;
    return {
        bodyIsJson: bodyIsJson(ctx),
        method: request.method,
        path: subPath(request.requestUrl, ctx.webhookId),
        requestId: ctx.logId,
        webhookId: ctx.webhookId,
        now: ctx.receivedAt,
        uuid: () => (uuid ??= randomUUID()),
        query: request.query,
        headers: request.headers,
        bodyText() {
            if (body === undefined) body = stored().raw?.toString('utf8') ?? null;
            return body;
        },
    };
}
