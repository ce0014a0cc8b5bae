import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { EventStore } from '../storage/event-store.js';
import type { RetrySchedule } from '../lib/backoff.js';
import { ForwardOutcomes, type FinalOutcome } from './forward-outcomes.js';
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

/** The outcome of a capture still waiting when the service stopped. */
const STOPPED_BEFORE_SENT: FinalOutcome = { status: 'dropped', statusCode: null, attempts: 0, error: 'the service stopped before it was sent' };

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
    /** Jobs being delivered, with the attempt each is on (0 before the first). */
    private readonly running = new Map<ForwardJob, number>();
    private streaming = 0;
    private stopped = false;
    private readonly whenIdle: (() => void)[] = [];
    private queuedBytes = 0;
    private readonly guard: SsrfGuard;
    private target: { checked: Promise<CheckedTarget>; until: number } | undefined;
    private readonly outcomes: ForwardOutcomes;

    constructor(
        readonly url: string,
        private readonly deps: { store: EventStore; blobs: BlobStore; clock: Clock; log: Logger; allowlist: readonly string[]; metrics: Metrics },
        private readonly options: ForwarderOptions,
    ) {
        this.guard = new SsrfGuard({ allowlist: deps.allowlist });
        this.outcomes = new ForwardOutcomes(url, deps);
    }

    /** Queues a job; false (and the event records `dropped`) when the queue is full. */
    enqueue(job: ForwardJob): boolean {
        const bytes = job.body?.length ?? 0;
        if (this.stopped) {
            this.outcomes.record(job.eventId, STOPPED_BEFORE_SENT);
            return false;
        }
        if (this.queue.length + this.running.size >= this.options.maxQueue || this.queuedBytes + bytes > this.options.maxQueuedBytes) {
            this.outcomes.record(job.eventId, { status: 'dropped', statusCode: null, attempts: 0, error: 'forwarding queue full' });
            return false;
        }
        this.queuedBytes += bytes;
        this.queue.push(job);
        this.pump();
        return true;
    }

    private pump(): void {
        while (this.running.size < this.options.concurrency && this.queue.length > 0) {
            // Offloaded bodies stream from storage on this thread, a few at a time; the jobs behind
            // one wait their turn, so captures still go out in order.
            if (this.queue[0]!.blob && this.streaming >= STREAMED_AT_ONCE) break;
            const job = this.queue.shift()!;
            this.running.set(job, 0);
            if (job.blob) this.streaming++;
            void this.run(job).finally(() => {
                this.running.delete(job);
                if (job.blob) this.streaming--;
                this.queuedBytes -= job.body?.length ?? 0;
                this.pump();
                if (this.queue.length === 0 && this.running.size === 0) for (const done of this.whenIdle.splice(0)) done();
            });
        }
    }

    /**
     * Stops forwarding, for a shutdown: waits up to `graceMs` for what is queued and in flight, then
     * records what did not finish (never sent: `dropped`; sent but unanswered: `failed`), so every
     * capture keeps an outcome, and resolves once all outcomes are stored. Deliveries still in
     * flight are abandoned; what they come to later is not recorded.
     */
    async stop(graceMs: number): Promise<void> {
        if (this.queue.length > 0 || this.running.size > 0) {
            await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, graceMs);
                this.whenIdle.push(() => {
                    clearTimeout(timer);
                    resolve();
                });
            });
        }
        this.stopped = true;
        for (const job of this.queue.splice(0)) this.outcomes.record(job.eventId, STOPPED_BEFORE_SENT);
        for (const [job, attempts] of this.running) {
            if (attempts === 0) this.outcomes.record(job.eventId, STOPPED_BEFORE_SENT);
            else this.outcomes.record(job.eventId, { status: 'failed', statusCode: null, attempts, error: 'the service stopped before the target answered' });
        }
        await this.outcomes.flush();
    }

    private async run(job: ForwardJob): Promise<void> {
        const outcome = await this.deliver(job);
        // After a stop, the stop has already recorded how this delivery ended for the service.
        if (!this.stopped) this.outcomes.record(job.eventId, outcome);
    }

    /** Sends one job on the retry schedule; never throws. */
    private async deliver(job: ForwardJob): Promise<FinalOutcome> {
        try {
            const target = await this.checkedTarget();
            const { method, headers, blob, body } = job;
            const outcome = await withRetries(this.options.schedule, this.deps.clock, async (n) => {
                this.running.set(job, n);
                // An offloaded body is streamed from storage, so it is sent from this thread.
                if (blob) return sendOnce(target, { method, headers, body: (await this.deps.blobs.read(blob.key)).stream }, this.options.timeoutMs);
                return deliveries.send(target, body === undefined ? { method, headers } : { method, headers, body }, this.options.timeoutMs);
            });
            if (outcome.ok) return { status: 'delivered', statusCode: outcome.value.statusCode, attempts: outcome.attempts, error: null };
            return { status: 'failed', statusCode: null, attempts: outcome.attempts, error: outcome.errors.at(-1)?.message ?? 'failed' };
        } catch (error) {
            // A refused destination (SSRF guard) or an unreadable blob: never sent.
            return { status: 'failed', statusCode: null, attempts: 0, error: error instanceof Error ? error.message : String(error) };
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
}
