import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { setHeader } from '../lib/headers.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { BacklogItem, ForwardBacklog } from '../storage/roles.js';
import type { RetrySchedule } from '../lib/backoff.js';
import type { FloodPacing } from '../config/index.js';
import { CapturePressure } from './capture-pressure.js';
import { ForwardOutcomes, type FinalOutcome } from './forward-outcomes.js';
import { replayableHeaders } from './headers.js';
import { withRetries } from './retry.js';
import { sendOnce } from './send.js';
import { SendThread } from './send-thread.js';
import { SsrfGuard, type CheckedTarget } from './ssrf-guard.js';

/** The loop marker: every service that forwards a request appends its instance id here. */
export const LOOP_HEADER = 'X-Webhook-Debugger-Forwarded-By';
const LOOP_HEADER_LOWER = LOOP_HEADER.toLowerCase();

/** One capture to forward: the request as received, minus what must not leave. */
export interface ForwardJob {
    eventId: string;
    method: string;
    headers: Record<string, string>;
    /** Inline bytes; absent for an offloaded body (`blob`) or none. */
    body?: Buffer;
    blob?: { key: string; size: number };
}

/** A capture's body as forwarding needs it: inline bytes, or the key of a body kept in the blob store. */
export interface ForwardBody {
    raw?: Buffer | undefined;
    blobKey?: string | undefined;
    size: number;
}

/** The instance ids a captured request was already forwarded by (its loop marker). */
export function forwardedBy(captured: Record<string, unknown>): string[] {
    const marker = captured[LOOP_HEADER_LOWER];
    return typeof marker === 'string' ? marker.split(',').map((s) => s.trim()).filter(Boolean) : [];
}

/**
 * The request that forwards a capture: its method, its headers minus credential and transport ones
 * plus the loop marker with `instanceId` appended, and its body (none for HEAD).
 */
export function forwardJob(eventId: string, method: string, captured: Record<string, unknown>, body: ForwardBody, instanceId: string): ForwardJob {
    const { headers } = replayableHeaders(captured);
    setHeader(headers, LOOP_HEADER, [...forwardedBy(captured), instanceId].join(', '));
    if (body.blobKey !== undefined) {
        headers['Content-Length'] = String(body.size);
        return { eventId, method, headers, blob: { key: body.blobKey, size: body.size } };
    }
    if (body.raw !== undefined && body.raw.length > 0 && method !== 'HEAD') return { eventId, method, headers, body: body.raw };
    return { eventId, method, headers };
}

/** Bounds and pacing of forwarding. */
export interface ForwarderOptions {
    /** Committed captures whose request is kept in memory until its turn; the others are read back from storage then. */
    maxHeld: number;
    /** Body bytes kept in memory: held, and in flight. */
    maxHeldBytes: number;
    /** Deliveries in flight at once. */
    concurrency: number;
    /** Deliveries started while capture is flooded. */
    inFlood: FloodPacing;
    schedule: RetrySchedule;
    timeoutMs: number;
}

/** Backlog entries read from storage at a time. */
const BACKLOG_BATCH = 256;

/** Offloaded bodies (over the offload threshold) sent at once. */
const STREAMED_AT_ONCE = 4;

/**
 * Capture comes first. A delivery costs CPU (got-scraping ~0.5 ms, plus the target's own when it
 * shares the machine). While the capture thread is more than a fifth busy (its event-loop
 * utilization over the last 100 ms; ~1,000 captures/s here), deliveries go through a second thread
 * at the lowest CPU priority (nice 19): with CPU to spare they still leave at once, and when the CPU
 * is short they wait in the backlog instead of slowing the answers to senders. Otherwise they go
 * through a thread at normal priority, so other busy processes on the machine cannot starve them.
 * (Priority is never raised again, which needs privileges; hence two threads.)
 *
 * In a flood (the capture thread over 80 % busy while captures keep arriving, until it falls under
 * 50 % or none arrived for 0.3 s) even a low-priority delivery costs capture: its hand-offs and
 * outcome run on the capture thread, and its garbage collection and the target's work do not run
 * at nice 19. Then forwards only trickle out (Config.forwardInFlood: one at a time, at most 10 a
 * second), so they keep moving without taking the CPU; the rest wait in the backlog and go out at
 * full rate when the flood ends. The trickle goes through the normal-priority thread: it costs next
 * to nothing, and other busy processes cannot stop it. Measured in bench/README.md.
 */
const PRESSURE = { intervalMs: 100, busyAbove: 0.2, floodAbove: 0.8, floodBelow: 0.5, quietToEnd: 3 };
/** The low-priority delivery thread's niceness. */
const LOW_PRIORITY = 19;

/** How long a checked destination (its resolved, vetted address) is reused before DNS is asked again. */
const TARGET_TTL_MS = 30_000;

/** The outcome of a capture whose request to forward existed only in memory, and is gone. */
const NOT_KEPT: FinalOutcome = {
    status: 'dropped',
    statusCode: null,
    attempts: 0,
    error: 'the request to forward was kept only in memory (redactBodyPaths or a script changed what is stored) and was lost to a restart or a full queue',
};

/**
 * Forwards captures to `forwardUrl` in the background, from a backlog in the event store: a capture
 * joins it in the commit that stores it, and leaves it with its final outcome. So a slow or dead
 * target, a flood, or a restart loses no forward: what waits is on disk, read back in capture order.
 * Memory is bounded: the request of a fresh capture is kept ready (up to `maxHeld` captures and
 * `maxHeldBytes` of bodies); beyond that it is rebuilt from the stored event when its turn comes.
 */
export class Forwarder {
    /** Unique per running service: the loop marker this instance appends. */
    readonly instanceId = randomBytes(9).toString('base64url');
    private readonly held = new Map<string, ForwardJob>();
    private heldBytes = 0;
    /** Backlog entries read and not yet started, in capture order; `head` is the first one's request. */
    private ready: BacklogItem[] = [];
    private head: ForwardJob | undefined;
    /** The last backlog position read. */
    private cursor = 0;
    /** The last read found nothing more; a commit (wake) says there may be. */
    private drained = false;
    private scheduled = false;
    /** A read from storage (the backlog, or a stored request) is in flight; pump waits for it. */
    private loading = false;
    /** Counts wake() calls, so a backlog read that a commit overtook does not mark the backlog drained. */
    private wakes = 0;
    /** Jobs being delivered. */
    private readonly running = new Set<ForwardJob>();
    private streaming = 0;
    /** Deliveries started during a flood (the trickle), and the earliest time the next may start. */
    private readonly inTrickle = new Set<ForwardJob>();
    private floodSlotAt = 0;
    private stopped = false;
    private readonly whenIdle: (() => void)[] = [];
    private readonly guard: SsrfGuard;
    private target: { checked: Promise<CheckedTarget>; until: number } | undefined;
    private readonly outcomes: ForwardOutcomes;
    /** Deliveries with their body in memory go through threads of their own, off the capture thread. */
    private readonly deliveries = new SendThread();
    /** The same at the lowest priority, while the capture thread is busy. */
    private readonly yielding = new SendThread(LOW_PRIORITY);
    private readonly pressure: CapturePressure;

    constructor(
        readonly url: string,
        private readonly deps: { backlog: ForwardBacklog; blobs: BlobStore; clock: Clock; log: Logger; allowlist: readonly string[]; metrics: Metrics },
        private readonly options: ForwarderOptions,
    ) {
        this.guard = new SsrfGuard({ allowlist: deps.allowlist });
        this.outcomes = new ForwardOutcomes(url, deps);
        this.pressure = new CapturePressure({
            ...PRESSURE,
            activity: () => deps.metrics.ingestTotal,
            // Held back by a flood: the backlog goes out at full rate once it ends.
            onChange: (level) => level !== 'flooded' && this.wake(),
        });
        // Loading got-scraping in a thread costs ~0.4 s of CPU: paid at start, not by the first captures
        // to forward (the low-priority thread starts at the first busy moment).
        this.deliveries.warm();
        // What the last run left in the backlog goes out first.
        this.wake();
    }

    /** A capture was committed to the backlog: its request is kept ready, within the memory bounds. */
    committed(job: ForwardJob): void {
        const bytes = job.body?.length ?? 0;
        if (!this.stopped && this.held.size < this.options.maxHeld && this.heldBytes + bytes <= this.options.maxHeldBytes) {
            this.held.set(job.eventId, job);
            this.heldBytes += bytes;
        }
        this.wake();
    }

    /** The backlog may have grown: it is read again at the end of this turn. */
    wake(): void {
        this.drained = false;
        this.wakes++;
        if (this.scheduled || this.stopped) return;
        this.scheduled = true;
        setImmediate(() => {
            this.scheduled = false;
            this.pump();
        });
    }

    /** Capture is flooded, so forwards only trickle out (/system/metrics). */
    get trickling(): boolean {
        return this.pressure.flooded;
    }

    /** Captures whose request waits in memory for its turn (/system/metrics). */
    get heldInMemory(): number {
        return this.held.size;
    }

    private pump(): void {
        while (!this.stopped && this.running.size < this.options.concurrency) {
            // In a flood, pump runs again with the next commit, when the trickle's delivery ends, or
            // once the flood ends.
            const flooded = this.pressure.flooded;
            if (flooded && !this.floodSlotOpen()) break;
            if (this.loading) break;
            const item = this.nextItem();
            if (!item) break;
            let job = this.head;
            if (!job) {
                const taken = this.take(item);
                // Being read from storage: pump runs again once it is.
                if (taken === undefined) break;
                if ('status' in taken) {
                    this.ready.shift();
                    this.outcomes.record(item.eventId, taken);
                    continue;
                }
                job = this.head = taken;
            }
            // Offloaded bodies stream from storage on this thread, a few at a time; inline bodies read
            // back from storage count against the memory bound while they are out. Either way the
            // captures behind wait their turn, so they still go out in order.
            if (job.blob && this.streaming >= STREAMED_AT_ONCE) break;
            if (this.heldBytes > this.options.maxHeldBytes && this.running.size > 0) break;
            this.ready.shift();
            this.head = undefined;
            if (flooded) {
                this.inTrickle.add(job);
                this.floodSlotAt = this.deps.clock.monotonic() + this.options.inFlood.everyMs;
            }
            this.start(job);
        }
        if (this.idle) for (const done of this.whenIdle.splice(0)) done();
    }

    /** Whether a delivery may start now while capture is flooded (deliveries started before it do not count). */
    private floodSlotOpen(): boolean {
        return this.inTrickle.size < this.options.inFlood.inFlight && this.deps.clock.monotonic() >= this.floodSlotAt;
    }

    /** Nothing in flight, nothing read and waiting, and the last read found no more. */
    private get idle(): boolean {
        return this.running.size === 0 && this.ready.length === 0 && this.drained && !this.loading;
    }

    /** The next backlog entry to start; when none is left, starts reading a batch from storage and returns undefined. */
    private nextItem(): BacklogItem | undefined {
        if (this.ready.length === 0 && !this.drained) {
            const wakes = this.wakes;
            this.load(this.deps.backlog.readForwardBacklog(this.cursor, BACKLOG_BATCH).then(
                (items) => {
                    this.ready = items;
                    // A commit during the read may lie past what it saw: then it is not drained.
                    if (items.length < BACKLOG_BATCH && wakes === this.wakes) this.drained = true;
                    if (items.length > 0) this.cursor = items.at(-1)!.seq;
                },
                (error: unknown) => this.readFailed('the forwarding backlog could not be read', error),
            ));
        }
        return this.ready[0];
    }

    /**
     * The request of a backlog entry: the one kept in memory, else rebuilt from the stored event
     * (read in the background: undefined until `head` holds it).
     */
    private take(item: BacklogItem): ForwardJob | FinalOutcome | undefined {
        const held = this.held.get(item.eventId);
        if (held) {
            this.held.delete(item.eventId);
            return held;
        }
        if (!item.exact) return NOT_KEPT;
        this.load(this.deps.backlog.forwardSource(item.eventId).then(
            (stored) => {
                // A stop cleared the backlog while the read was out.
                if (this.ready[0] !== item) return;
                if (!stored) {
                    this.ready.shift();
                    this.outcomes.record(item.eventId, { status: 'dropped', statusCode: null, attempts: 0, error: 'the capture is no longer stored' });
                    return;
                }
                const job = forwardJob(item.eventId, stored.method, stored.headers, stored.body, this.instanceId);
                this.heldBytes += job.body?.length ?? 0;
                this.head = job;
            },
            (error: unknown) => this.readFailed('a capture to forward could not be read', error),
        ));
        return undefined;
    }

    /** Runs a read from storage; pump goes on once it ends. */
    private load(read: Promise<void>): void {
        this.loading = true;
        void read.finally(() => {
            this.loading = false;
            this.pump();
        });
    }

    /** A read failed (the database is away): the backlog stays as it is and is read again in a second. */
    private readFailed(what: string, error: unknown): void {
        this.deps.log.warn(what, { error: String(error) });
        // What was read and not started is read again, from its first entry.
        if (this.ready.length > 0) this.cursor = this.ready[0]!.seq - 1;
        this.drained = true;
        this.ready = [];
        setTimeout(() => this.wake(), 1000).unref();
    }

    private start(job: ForwardJob): void {
        this.running.add(job);
        if (job.blob) this.streaming++;
        void this.run(job).finally(() => {
            this.running.delete(job);
            this.inTrickle.delete(job);
            if (job.blob) this.streaming--;
            this.heldBytes -= job.body?.length ?? 0;
            this.pump();
        });
    }

    /**
     * Stops forwarding, for a shutdown: waits up to `graceMs` for the backlog to empty, then lets go.
     * What did not finish stays in the backlog and goes out after the next start; a delivery that was
     * on the wire is sent again then (at least once). Resolves once the outcomes reached are stored.
     */
    async stop(graceMs: number): Promise<void> {
        if (!this.idle || this.scheduled) {
            await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, graceMs);
                this.whenIdle.push(() => {
                    clearTimeout(timer);
                    resolve();
                });
                this.wake();
            });
        }
        this.stopped = true;
        this.pressure.stop();
        this.held.clear();
        this.ready = [];
        this.head = undefined;
        // Deliveries not yet answered are abandoned, and those waiting for a connection never leave.
        await Promise.all([this.deliveries.close(), this.yielding.close()]);
        await this.outcomes.flush();
    }

    private async run(job: ForwardJob): Promise<void> {
        const outcome = await this.deliver(job);
        // After a stop, the capture stays in the backlog for the next start.
        if (!this.stopped) this.outcomes.record(job.eventId, outcome);
    }

    /** Sends one job on the retry schedule; never throws. */
    private async deliver(job: ForwardJob): Promise<FinalOutcome> {
        try {
            const target = await this.checkedTarget();
            const { method, headers, blob, body } = job;
            const outcome = await withRetries(this.options.schedule, this.deps.clock, async () => {
                // No attempt begins after a stop: the capture waits in the backlog for the next start.
                if (this.stopped) throw new Error('forwarding stopped');
                // An offloaded body is streamed from storage, so it is sent from this thread.
                if (blob) return sendOnce(target, { method, headers, body: (await this.deps.blobs.read(blob.key)).stream }, this.options.timeoutMs);
                const lowPriority = this.pressure.level === 'busy' && !this.inTrickle.has(job);
                return (lowPriority ? this.yielding : this.deliveries).send(target, body === undefined ? { method, headers } : { method, headers, body }, this.options.timeoutMs);
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
