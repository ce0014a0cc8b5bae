import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { EventStore } from '../storage/event-store.js';
import type { ForwardOutcome } from '../storage/types.js';
import type { RetrySchedule } from '../lib/backoff.js';
import { withRetries } from './retry.js';
import { sendOnce } from './send.js';
import { SendThread } from './send-thread.js';
import { SsrfGuard, type CheckedTarget } from './ssrf-guard.js';

/** One capture to forward: the request as received, minus what must not leave. */
export interface ForwardJob {
    eventId: string;
    method: string;
    headers: Record<string, string>;
    /** Inline bytes; absent for an offloaded body (`blob`) or none. */
    body?: Buffer;
    blob?: { key: string; size: number };
}

/** Bounds and pacing of forwarding. */
export interface ForwarderOptions {
    /** Jobs waiting or in flight before new ones are dropped. */
    maxQueue: number;
    /** Inline body bytes waiting or in flight before new ones are dropped. */
    maxQueuedBytes: number;
    /** Deliveries in flight at once. */
    concurrency: number;
    schedule: RetrySchedule;
    timeoutMs: number;
}

/** Deliveries with their body in memory go through one thread per process, off the capture thread. */
const deliveries = new SendThread();

/** Offloaded bodies (over the offload threshold) sent at once. */
const STREAMED_AT_ONCE = 4;

/** How long a checked destination (its resolved, vetted address) is reused before DNS is asked again. */
const TARGET_TTL_MS = 30_000;

/**
 * Forwards captures to `forwardUrl` in the background. The queue is bounded by jobs and by bytes, so a
 * slow or dead target costs bounded memory: past the bound a capture is not forwarded and the event
 * records `dropped`. Outcomes of one turn are written to storage together.
 */
export class Forwarder {
    private readonly queue: ForwardJob[] = [];
    private inFlight = 0;
    private streaming = 0;
    private queuedBytes = 0;
    private readonly guard: SsrfGuard;
    private target: { checked: Promise<CheckedTarget>; until: number } | undefined;
    private outcomes: { eventId: string; outcome: ForwardOutcome }[] = [];

    constructor(
        readonly url: string,
        private readonly deps: { store: EventStore; blobs: BlobStore; clock: Clock; log: Logger; allowlist: readonly string[]; metrics: Metrics },
        private readonly options: ForwarderOptions,
    ) {
        this.guard = new SsrfGuard({ allowlist: deps.allowlist });
    }

    /** Queues a job; false (and the event records `dropped`) when the queue is full. */
    enqueue(job: ForwardJob): boolean {
        const bytes = job.body?.length ?? 0;
        if (this.queue.length + this.inFlight >= this.options.maxQueue || this.queuedBytes + bytes > this.options.maxQueuedBytes) {
            this.record(job.eventId, { status: 'dropped', statusCode: null, attempts: 0, error: 'forwarding queue full' });
            return false;
        }
        this.queuedBytes += bytes;
        this.queue.push(job);
        this.pump();
        return true;
    }

    private pump(): void {
        while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
            // Offloaded bodies stream from storage on this thread, a few at a time; the jobs behind
            // one wait their turn, so captures still go out in order.
            if (this.queue[0]!.blob && this.streaming >= STREAMED_AT_ONCE) break;
            const job = this.queue.shift()!;
            this.inFlight++;
            if (job.blob) this.streaming++;
            void this.run(job).finally(() => {
                this.inFlight--;
                if (job.blob) this.streaming--;
                this.queuedBytes -= job.body?.length ?? 0;
                this.pump();
            });
        }
    }

    private async run(job: ForwardJob): Promise<void> {
        try {
            const target = await this.checkedTarget();
            const { method, headers, blob, body } = job;
            const outcome = await withRetries(this.options.schedule, this.deps.clock, async () => {
                // An offloaded body is streamed from storage, so it is sent from this thread.
                if (blob) return sendOnce(target, { method, headers, body: (await this.deps.blobs.read(blob.key)).stream }, this.options.timeoutMs);
                return deliveries.send(target, body === undefined ? { method, headers } : { method, headers, body }, this.options.timeoutMs);
            });
            if (outcome.ok) this.record(job.eventId, { status: 'delivered', statusCode: outcome.value.statusCode, attempts: outcome.attempts, error: null });
            else this.record(job.eventId, { status: 'failed', statusCode: null, attempts: outcome.attempts, error: outcome.errors.at(-1)?.message ?? 'failed' });
        } catch (error) {
            // A refused destination (SSRF guard) or an unreadable blob: never sent.
            this.record(job.eventId, { status: 'failed', statusCode: null, attempts: 0, error: error instanceof Error ? error.message : String(error) });
        }
    }

    /** The vetted destination, re-checked (DNS and ranges) at most every TARGET_TTL_MS. */
    private checkedTarget(): Promise<CheckedTarget> {
        const now = this.deps.clock.monotonic();
        if (!this.target || now > this.target.until) {
            const checked = this.guard.check(this.url);
            this.target = { checked, until: now + TARGET_TTL_MS };
            // A failed check is not cached: the next capture tries again.
            checked.catch(() => (this.target = undefined));
        }
        return this.target.checked;
    }

    private record(eventId: string, result: Omit<ForwardOutcome, 'url' | 'at'> & { status: 'delivered' | 'failed' | 'dropped' }): void {
        this.deps.metrics.forwarding[result.status]++;
        this.outcomes.push({ eventId, outcome: { ...result, url: this.url, at: new Date(this.deps.clock.now()).toISOString() } });
        if (this.outcomes.length > 1) return;
        setImmediate(() => {
            const rows = this.outcomes;
            this.outcomes = [];
            this.deps.store.recordForwards(rows).catch((error: unknown) => this.deps.log.warn('forwarding outcomes could not be stored', { error: String(error), events: rows.length }));
        });
    }
}
