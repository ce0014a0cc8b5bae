import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import type { ReceivedBody } from '../memory/receive-body.js';
import type { Metrics } from '../lib/metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { DeletionLog } from '../storage/deletion-log.js';
import type { EventLog } from '../storage/roles.js';
import type { NewEvent, Webhook } from '../storage/types.js';
import type { WebhookManager } from '../webhooks/manager.js';
import type { ForwardJob, Forwarder } from '../delivery/forwarder.js';
import type { AnswerPick, AnswerPlan } from '../webhooks/answer.js';
import type { DescribedForm } from '../forms/describe.js';
import type { FormReader } from '../forms/types.js';

/** Services the ingest steps use, built once at start. */
export interface IngestDeps {
    config: Config;
    clock: Clock;
    ids: IdGenerator;
    /** Where captures are committed (ingest only appends). */
    events: EventLog;
    blobs: BlobStore;
    webhooks: WebhookManager;
    metrics: Metrics;
    log: Logger;
    /** Called with every stored event (the live feed subscribes here). */
    publish: (event: NewEvent) => void;
    /** Where deleted capture ids are remembered for a rebuild of the read model (absent in tools). */
    deletions?: DeletionLog;
    /** Delivers captures to `forwardUrl` in the background; absent without it. */
    forwarder?: Forwarder;
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
    /** Whether masking changed a header that forwarding sends (the stored request is then not the forwarded one). */
    headersAltered: boolean;
}

/** The answer being prepared for the sender. */
export interface PreparedResponse {
    status: number;
    headers: Record<string, string>;
    /** A string or bytes are sent as is; anything else as JSON. */
    body: unknown;
}

/** What flows through the ingest steps; each step reads it and adds to it. */
export interface IngestContext {
    readonly req: IncomingMessage;
    readonly res: ServerResponse;
    readonly deps: IngestDeps;
    readonly requestId: string;
    readonly logId: string;
    /** Monotonic ms at arrival, for processingTime. */
    readonly startedAt: number;
    /** Epoch ms at arrival: the event's timestamp. */
    readonly receivedAt: number;
    readonly webhookId: string;
    readonly search: URLSearchParams;
    readonly clientIp: string;
    webhook?: Webhook;
    /** The webhook's own answer (its `response`), when it has one. */
    answer?: AnswerPlan;
    /** The answer this request took from `answer`. */
    picked?: AnswerPick;
    /** The rule whose answer this request got (cleared when an error answers instead). */
    answeredBy?: { index: number; name: string | null };
    /** Set once the body is being read: from then on, the request is stored whatever happens. */
    capturing: boolean;
    body: ReceivedBody;
    /** A form body's reader, fed every chunk as it arrives (offloaded bodies too), until the form is described. */
    formReader?: FormReader;
    /** The body's form description once the body is in, masked and redacted (absent when the body is no form). */
    form?: DescribedForm;
    /** A form body left to the store to describe (steps/describe-form.ts): not read yet, then handed over with the event. */
    formLeft?: 'unread' | 'store';
    /** The parsed JSON body once `jsonBody` has built it. */
    json?: { value: unknown };
    /** The request's stored fields once `storedRequest` has built them (the script's view and the stored event share them). */
    stored?: StoredRequest;
    response: PreparedResponse;
    /** Headers every answer to this request carries, whatever it is (rate-limit figures). */
    extraHeaders: Record<string, string>;
    signature?: { valid: boolean; provider: string; error?: string };
    /** What the custom script changed in the stored event (headers, query, extra fields). */
    scripted?: { headers?: Record<string, unknown>; query?: Record<string, unknown>; extra?: Record<string, unknown> };
    /** The request that forwards this capture (`forwardUrl`); handed to the forwarder once committed. */
    forward?: ForwardJob;
    /** Runs after the event is committed, before the answer goes out (the response delay). */
    beforeAnswer?: () => Promise<void>;
    /** Facts recorded on the event (rejection reasons, parse errors). */
    meta: Record<string, unknown>;
}

/** One step of the ingest pipeline: it adds to the context or throws an AppError. */
export type Step = (ctx: IngestContext) => void | Promise<void>;

/** The body as a JSON value when its kind is json (built on first use), else undefined. */
export function jsonBody(ctx: IngestContext): unknown {
    if (ctx.body.kind !== 'json' || !ctx.body.raw) return undefined;
    ctx.json ??= { value: JSON.parse(ctx.body.raw.toString('utf8')) as unknown };
    return ctx.json.value;
}
