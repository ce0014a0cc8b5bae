// The API's shapes, as the server defines them (src/api: Node-free, bundled by Vite). The dashboard
// writes none of them again and takes nothing from the server's storage.
import type { ReplayError, ReplayResult as ReplaySuccess } from '../../src/api/replay.js';
import type { ManagedWebhook, WebhookChange } from '../../src/api/webhook.js';

export type { LogEntry, LogPageCursor as CursorPage, LogSummary, ReplayRecord } from '../../src/api/capture.js';
export type { ErrorDetail } from '../../src/api/errors.js';
export type { Info } from '../../src/api/info.js';
export type { AnswerSpec, ResponseSpec } from '../../src/api/webhook.js';

/** The answer of POST /replay: the fields of a success, or those of a failure. */
export type ReplayResult = Partial<Omit<ReplaySuccess, 'status'>> & Partial<Omit<ReplayError, 'status'>>;

/** A webhook as GET /webhooks lists it. */
export type Webhook = ManagedWebhook;

/** What PATCH /webhooks/:id changes. */
export type WebhookPatch = WebhookChange;
export type { ReplayJob, ReplayJobDryRun } from '../../src/api/replay-jobs.js';
