import type { Config } from '../../config/index.js';
import type { Clock } from '../../lib/clock.js';
import { CredentialRule } from '../../lib/credentials.js';
import { replayJobId } from '../../lib/ids.js';
import type { Logger } from '../../lib/log.js';
import type { Metrics } from '../../lib/metrics.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { ReplayJobStore } from '../../storage/replay-job-store.js';
import type { EventLog, ExportOutbox } from '../../storage/roles.js';
import type { WebhookManager } from '../../webhooks/manager.js';
import { CapturePressure } from '../capture-pressure.js';
import { createReplaySender, type ReplayTransport } from '../replay.js';
import { configuredSigner } from '../replay-signer.js';
import { sendOnce } from '../send.js';
import { SendThread } from '../send-thread.js';
import { SsrfGuard } from '../ssrf-guard.js';
import { ReplayJobs } from './jobs.js';
import { ReplayJobScheduler } from './scheduler.js';

/** Jobs one instance runs at once; more wait, queued, for a free turn here or elsewhere. */
const MAX_RUNNING = 4;
/** When the capture thread counts as busy (its event-loop utilization over 100 ms), as forwarding judges it. */
const PRESSURE = { intervalMs: 100, busyAbove: 0.2, floodAbove: 0.8, floodBelow: 0.5, quietToEnd: 3 };
/** The niceness of the delivery thread used while the capture thread is busy. */
const LOW_PRIORITY = 19;

/** What bulk replay jobs are built from. */
export interface ReplayJobsWiring {
    config: Config;
    clock: Clock;
    log: Logger;
    /** Its ingest count tells whether captures are arriving. */
    metrics: Pick<Metrics, 'ingestTotal'>;
    storage: { replayJobs: ReplayJobStore; events: EventLog; outbox: Pick<ExportOutbox, 'getExportRecord'>; replayJobPollMs: number };
    blobs: BlobStore;
    webhooks: WebhookManager;
    baseUrl(): string;
    /** Whether jobs may run yet (the service accepts requests, and no catch-up from the dataset is under way). */
    mayRun(): boolean;
}

/** The runner's side of jobs, as the service starts and stops it. */
export interface JobRunner {
    start(): void;
    /** Stops the scheduler (sends in flight end, up to `ms`) and then the delivery thread. */
    stop(ms: number): Promise<void>;
}

/** Bulk replay jobs: the routes' side and the runner (started and stopped by the service). */
export function createReplayJobs(w: ReplayJobsWiring): { jobs: ReplayJobs; runner: JobRunner } {
    const { config, clock, log, storage } = w;
    const guard = new SsrfGuard({ allowlist: config.env.ssrfAllowlist });
    const check = (url: string) => guard.check(url);
    const signer = configuredSigner(config, clock);
    // got-scraping costs ~0.5 ms of CPU a send (send-thread.ts): 200 sends a second on the capture
    // thread would take a tenth of it, and show in ingest latency. A body in memory goes through a
    // thread of the jobs' own, at the lowest CPU priority while the capture thread is busy (as
    // forwarding does): capture comes first, and a job only slows down. An offloaded body is streamed
    // from the calling thread.
    const threads = { normal: new SendThread(), yielding: new SendThread(LOW_PRIORITY) };
    const pressure = new CapturePressure({ ...PRESSURE, activity: () => w.metrics.ingestTotal });
    const transport: ReplayTransport = (target, req, ms) => {
        if (req.body !== undefined && !Buffer.isBuffer(req.body)) return sendOnce(target, req, ms);
        const thread = pressure.level === 'idle' ? threads.normal : threads.yielding;
        return thread.send(target, { method: req.method, headers: req.headers, ...(req.body ? { body: req.body } : {}) }, ms);
    };
    const send = createReplaySender({ config, clock, events: storage.events, records: storage.outbox, blobs: w.blobs, webhooks: w.webhooks }, signer, transport);
    const scheduler = new ReplayJobScheduler({ store: storage.replayJobs, send, check, clock, log }, { pollMs: storage.replayJobPollMs, maxRunning: MAX_RUNNING, mayRun: w.mayRun });
    const jobs = new ReplayJobs({
        store: storage.replayJobs, events: storage.events, scheduler, check, canResign: signer !== undefined, newId: replayJobId,
        now: () => clock.now(), credentials: new CredentialRule(config.input.authKey), baseUrl: w.baseUrl,
    });
    const runner: JobRunner = {
        start: () => scheduler.start(),
        stop: async (ms) => {
            await scheduler.stop(ms);
            pressure.stop();
            await Promise.all([threads.normal.close(), threads.yielding.close()]);
        },
    };
    return { jobs, runner };
}
