import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Config } from '../config/index.js';
import { AppError, BadRequestError, NotFoundError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { EventLog, ExportOutbox } from '../storage/roles.js';
import type { ReplayRecord, StoredBody } from '../storage/types.js';
import type { WebhookManager } from '../webhooks/manager.js';
import { deleteHeader, hasHeader, setHeader } from '../lib/headers.js';
import { replayableHeaders } from './headers.js';
import { checkReplayable, type ReplayEdit } from './replay-edit.js';
import { exponential } from '../lib/backoff.js';
import { withRetries, type RetryOutcome } from './retry.js';
import { checkRequest, RequestBuildError, sendOnce, type OutgoingRequest, type TargetResponse } from './send.js';
import { CredentialRule, maskUrl } from '../lib/credentials.js';
import { SsrfGuard, type CheckedTarget } from './ssrf-guard.js';

/**
 * Re-signs the bytes actually sent (`resign: true`): given them and the headers about to go out,
 * returns the headers to send. Helper S plugs the configured provider in here; without one, a
 * resign request is refused with 400.
 */
export type ReplaySigner = (body: Buffer, headers: Record<string, string>) => Record<string, string>;

/** What POST /replay/:webhookId/:itemId asks for. */
export interface ReplayRequest {
    webhookId: string;
    itemId: string;
    url: string | null;
    edit: ReplayEdit;
}

/** The success answer of a replay. */
export interface ReplayAnswer {
    status: 'replayed';
    targetUrl: string;
    targetResponseCode: number;
    targetResponseBody: string;
    strippedHeaders?: string[];
    resigned: boolean;
}

/** What the replayer needs. */
export interface ReplayDeps {
    config: Config;
    clock: Clock;
    events: EventLog;
    /** The stored request of an event: its row and body in one read. */
    records: Pick<ExportOutbox, 'getExportRecord'>;
    blobs: BlobStore;
    webhooks: WebhookManager;
}

/** Puts one attempt on the wire; `sendOnce` unless the caller sends elsewhere (a delivery thread). */
export type ReplayTransport = (target: CheckedTarget, req: OutgoingRequest, timeoutMs: number) => Promise<TargetResponse>;

const MISSING_URL = "Missing 'url' parameter";
const REPLAY_FAILED = 'Replay Failed';
const NO_SIGNER = 'Cannot re-sign: no signatureVerification secret is configured';

/** What sends a replay, as its record on the event says: POST /replay, or a bulk replay job. */
export interface ReplayOrigin {
    via: 'replay' | 'job';
    jobId?: string;
}

/** What one send of a stored event came to; it is recorded on the event either way. */
export interface ReplayDelivery {
    outcome: RetryOutcome<TargetResponse>;
    /** The captured headers left out (masked and transport ones). */
    stripped: string[];
    resigned: boolean;
}

/**
 * Replays one stored event (by id) to a target the guard checked: the captured method and bytes, the
 * stripped headers, the edit, re-signing, the deadline and retries; records it on the event's history
 * and resolves with the outcome, whatever the target answered. Rejects with NotFoundError when the
 * event is gone, with 400/422 when the request cannot be made (see createReplaySender).
 */
export type SendReplay = (logId: string, target: CheckedTarget, targetUrl: string, edit: ReplayEdit, origin: ReplayOrigin) => Promise<ReplayDelivery>;

/** The one way anything replays a stored event (POST /replay and bulk replay jobs); `signer` is the seam for `resign: true`. */
export function createReplaySender(deps: ReplayDeps, signer?: ReplaySigner, transport: ReplayTransport = sendOnce): SendReplay {
    const { replayMaxRetries, replayTimeoutMs } = deps.config.input;
    const schedule = exponential(replayMaxRetries, 200, 2000);
    const credentials = new CredentialRule(deps.config.input.authKey);

    return async (logId, target, targetUrl, edit, origin) => {
        if (edit.resign && !signer) throw new BadRequestError(NO_SIGNER);
        const { entry, body: stored } = await deps.records.getExportRecord(logId);
        const { headers, stripped } = replayableHeaders(entry.headers);
        for (const [name, value] of Object.entries(edit.headers ?? {})) {
            if (value === null) deleteHeader(headers, name);
            else setHeader(headers, name, value);
        }
        const method = edit.method ?? entry.method;
        checkReplayable(method, edit.method === undefined ? 'captured' : 'edited');
        setHeader(headers, 'X-Service-Replay', 'true');
        setHeader(headers, 'X-Original-Webhook-Id', entry.webhookId);
        unbuildable(method, headers);
        const body = bodySource(deps, stored, edit, headers);
        const resigned = edit.resign === true && signer !== undefined && body.bytes !== undefined;
        const sentHeaders = resigned ? signer(body.bytes!, headers) : headers;

        const outcome = await withRetries(schedule, deps.clock, async () => {
            const out: OutgoingRequest = { method, headers: { ...sentHeaders, 'Idempotency-Key': randomUUID() } };
            const payload = method === 'HEAD' ? undefined : await body.open();
            if (payload !== undefined) out.body = payload;
            return transport(target, out, replayTimeoutMs);
        });
        const record: ReplayRecord = {
            at: new Date(deps.clock.now()).toISOString(),
            // A target URL may carry our own key (a replay to this very service): it is not kept.
            targetUrl: maskUrl(targetUrl, credentials),
            targetResponseCode: outcome.ok ? outcome.value.statusCode : null,
            attempts: outcome.attempts,
            error: outcome.ok ? null : (outcome.errors.at(-1)?.message ?? 'failed'),
            resigned,
            via: origin.via,
            ...(origin.jobId !== undefined ? { jobId: origin.jobId } : {}),
        };
        await deps.events.recordReplay(logId, record);
        return { outcome, stripped, resigned };
    };
}

/** Builds POST /replay's operation on createReplaySender; `signer` is the seam for `resign: true`. */
export function createReplayer(deps: ReplayDeps, signer?: ReplaySigner): (req: ReplayRequest) => Promise<ReplayAnswer> {
    const guard = new SsrfGuard({ allowlist: deps.config.env.ssrfAllowlist });
    const { replayTimeoutMs } = deps.config.input;
    const send = createReplaySender(deps, signer);

    return async (req) => {
        const targetUrl = req.url?.trim() ?? '';
        if (targetUrl === '') throw new BadRequestError(MISSING_URL, { error: MISSING_URL });
        if (req.edit.resign && !signer) throw new BadRequestError(NO_SIGNER);
        const logId = await findEvent(deps, req.webhookId, req.itemId);
        const target = await guard.check(targetUrl);
        const { outcome, stripped, resigned } = await send(logId, target, targetUrl, req.edit, { via: 'replay' });
        if (!outcome.ok) throw failure(outcome.errors, outcome.attempts, replayTimeoutMs);
        const answer: ReplayAnswer = { status: 'replayed', targetUrl, targetResponseCode: outcome.value.statusCode, targetResponseBody: outcome.value.body, resigned };
        if (stripped.length > 0) answer.strippedHeaders = stripped;
        return answer;
    };
}

/**
 * Refuses at once, with 422 and no attempt, a request that cannot be put on the wire: a stored
 * header with CR/LF (an event stored before script headers were checked) fails every attempt the
 * same way, so retrying it only delays the answer. The message says how to send it anyway.
 */
function unbuildable(method: string, headers: Record<string, string>): void {
    try {
        checkRequest({ method, headers });
    } catch (error) {
        if (!(error instanceof RequestBuildError)) throw error;
        throw new AppError(422, `The replayed request cannot be built: ${error.message}. Remove or replace that header with the edit body, e.g. {"headers": {"<name>": null}}`);
    }
}

/** The event's id: `itemId` itself when it belongs to the webhook, else the event captured at that timestamp. */
async function findEvent(deps: ReplayDeps, webhookId: string, itemId: string): Promise<string> {
    const notFound = new NotFoundError(`Log entry '${itemId}' not found for webhook '${webhookId}'`);
    if (!deps.webhooks.getActive(webhookId)) throw notFound;
    if ((await deps.events.webhookOf(itemId)) === webhookId) return itemId;
    const ts = /^\d+$/.test(itemId) ? Number(itemId) : Date.parse(itemId);
    const byTime = Number.isFinite(ts) ? await deps.events.idAtTimestamp(webhookId, ts) : undefined;
    if (byTime === undefined) throw notFound;
    return byTime;
}

interface BodySource {
    /** The bytes when they are in memory (needed for re-signing); undefined for an offloaded body. */
    bytes: Buffer | undefined;
    /** A fresh body for one attempt. */
    open(): Promise<Buffer | Readable | undefined>;
}

/**
 * The body to send: the edit's, else the sender's bytes: streamed from the blob store whenever the
 * event has a blob (offloaded, or kept there because a custom script replaced the stored body).
 */
function bodySource(deps: ReplayDeps, stored: StoredBody, edit: ReplayEdit, headers: Record<string, string>): BodySource {
    if (edit.body) {
        const bytes = edit.body.bytes;
        if (edit.body.json && !(edit.headers && hasHeader(edit.headers, 'content-type'))) {
            setHeader(headers, 'Content-Type', 'application/json');
        }
        return { bytes, open: () => Promise.resolve(bytes) };
    }
    if (stored.blobKey) {
        const key = stored.blobKey;
        // Captured framing headers were stripped and an edit may not set them: the length is ours to give.
        headers['Content-Length'] = String(stored.size);
        return { bytes: undefined, open: async () => (await deps.blobs.read(key)).stream };
    }
    const bytes = stored.raw ?? Buffer.alloc(0);
    return { bytes, open: () => Promise.resolve(bytes.length > 0 ? bytes : undefined) };
}

/** 504 when every attempt timed out, else 502; both `Replay Failed`, with the last error's code. */
function failure(errors: { kind: string; code: string | undefined; message: string }[], attempts: number, timeoutMs: number): AppError {
    const last = errors.at(-1);
    const code = last?.code !== undefined ? { code: last.code } : {};
    if (errors.every((e) => e.kind === 'timeout')) {
        return new AppError(504, `Target timed out after ${attempts} attempts (${timeoutMs / 1000}s timeout per attempt)`, { error: REPLAY_FAILED, ...code });
    }
    return new AppError(502, `Target could not be reached after ${attempts} attempts: ${last?.message ?? 'network error'}`, { error: REPLAY_FAILED, ...code });
}
