import { AppError, NotFoundError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/log.js';
import { BEFORE_ALL, type ReplayItemOutcome, type ReplayJobItem, type ReplayJobRecord, type ReplayJobStore } from '../../storage/replay-job-store.js';
import type { SendReplay } from '../replay.js';
import type { ReplayEdit } from '../replay-edit.js';
import type { CheckedTarget } from '../ssrf-guard.js';
import { Pace } from './pace.js';

/** What running a job needs. */
export interface RunDeps {
    store: ReplayJobStore;
    send: SendReplay;
    /** The SSRF guard, asked again before every send: what a name resolves to may change during a job. */
    check(url: string): Promise<CheckedTarget>;
    clock: Clock;
    log: Logger;
}

/** Items read from the store at a time. */
const PAGE = 500;
/** How often the job is read again for a cancel asked elsewhere (another instance). */
const CHECK_MS = 1000;
/** Every how many checks the claim is renewed (a lease extended, a takeover noticed). */
const RENEW_EVERY = 10;

/**
 * Why a run stopped before its set was through: cancelled, stopAfterFailures reached, the process
 * stopping, the claim lost to another instance, or storage failing under it.
 */
type Halt = 'cancel' | 'failures' | 'shutdown' | 'lost' | 'error';

/**
 * One job, run by this instance: its pending items in order, started at `ratePerSecond` with at most
 * `concurrency` in flight, each a replay recorded on its event and counted on the job once durable.
 * A slot is free only once its outcome is recorded, so whatever happens to the process, at most
 * `concurrency` items were sent without a record: those are sent again by whoever resumes the job.
 */
export class JobRun {
    private halted: Halt | undefined;
    private readonly inFlight = new Set<Promise<void>>();
    private slotFreed: (() => void) | undefined;
    private failed: number;
    private lastError: string | undefined;
    /** Sends whose outcome could not be recorded: they are still pending, so the job is not done. */
    private unrecorded = 0;

    constructor(private readonly deps: RunDeps, private readonly job: ReplayJobRecord) {
        this.failed = job.failed;
    }

    /** Whether the run stopped because storage failed under it (the job was given back). */
    get storeFailed(): boolean {
        return this.halted === 'error';
    }

    /** Sends nothing more; the job ends `cancelled` once the sends in flight have ended. */
    cancel(): void {
        this.halt('cancel');
    }

    /** Sends nothing more and leaves the job to whoever resumes it (the process is stopping). */
    stop(): void {
        this.halt('shutdown');
    }

    private halt(why: Halt): void {
        this.halted ??= why;
        this.slotFreed?.();
    }

    /** Runs the job until its set is through or it is halted; never rejects for a send. */
    async run(): Promise<void> {
        const { store, log } = this.deps;
        const { id, spec } = this.job;
        if (this.job.cancelRequested) this.halt('cancel');
        if (spec.stopAfterFailures !== null && this.failed >= spec.stopAfterFailures) this.halt('failures');
        const watch = this.watch();
        try {
            const pace = new Pace(spec.ratePerSecond, this.deps.clock);
            let after = BEFORE_ALL;
            for (let page = await this.pending(after); page.length > 0 && !this.halted; page = await this.pending(after)) {
                for (const item of page) {
                    await this.freeSlot(spec.concurrency);
                    if (this.halted) break;
                    await pace.take();
                    if (this.halted) break;
                    after = item.position;
                    this.start(item);
                }
            }
        } catch (error) {
            // The store failed (a database away): the job goes back, to be claimed again once it answers.
            log.warn('a replay job stopped: its items could not be read', { job: id, error: String(error) });
            this.halt('error');
        } finally {
            await Promise.all(this.inFlight);
            clearInterval(watch);
        }
        await this.end().catch((error: unknown) => log.warn('could not end a replay job', { job: id, error: String(error) }));
    }

    private pending(after: number): Promise<ReplayJobItem[]> {
        return this.halted ? Promise.resolve([]) : this.deps.store.pending(this.job.id, after, PAGE);
    }

    private async end(): Promise<void> {
        const { store } = this.deps;
        const { id, spec } = this.job;
        if (this.halted === 'lost') return;
        // Released, not ended: whoever claims it next sends what is still pending (an unrecorded send again).
        if (this.halted === 'shutdown' || this.halted === 'error' || (this.halted === undefined && this.unrecorded > 0)) return store.release(id);
        if (this.halted === 'failures') return store.finish(id, 'failed', `Stopped after ${spec.stopAfterFailures} failed sends; the last: ${this.lastError ?? (await store.get(id))?.lastError ?? 'unknown'}`);
        return store.finish(id, this.halted === 'cancel' ? 'cancelled' : 'done');
    }

    /** Reads the job now and then for a cancel asked elsewhere, and renews the claim. */
    private watch(): NodeJS.Timeout {
        let checks = 0;
        const timer = setInterval(() => {
            void (async () => {
                const renew = ++checks % RENEW_EVERY === 0;
                if (renew && !(await this.deps.store.renew(this.job.id))) this.halt('lost');
                if ((await this.deps.store.get(this.job.id))?.cancelRequested) this.halt('cancel');
            })().catch((error: unknown) => this.deps.log.warn('could not read a replay job', { job: this.job.id, error: String(error) }));
        }, CHECK_MS);
        timer.unref();
        return timer;
    }

    private async freeSlot(concurrency: number): Promise<void> {
        while (this.inFlight.size >= concurrency && !this.halted) await new Promise<void>((resolve) => (this.slotFreed = resolve));
    }

    private start(item: ReplayJobItem): void {
        const sending: Promise<void> = this.sendOne(item).finally(() => {
            this.inFlight.delete(sending);
            this.slotFreed?.();
        });
        this.inFlight.add(sending);
    }

    private async sendOne(item: ReplayJobItem): Promise<void> {
        const { spec, id } = this.job;
        let outcome: ReplayItemOutcome;
        let error: string | undefined;
        try {
            const target = await this.deps.check(spec.url);
            const { outcome: sent } = await this.deps.send(item.eventId, target, spec.url, editOf(spec), { via: 'job', jobId: id });
            const status = sent.ok ? sent.value.statusCode : undefined;
            outcome = status !== undefined && status >= 200 && status < 300 ? 'succeeded' : 'failed';
            if (outcome === 'failed') error = status !== undefined ? `HTTP ${status}` : (sent.ok ? 'failed' : (sent.errors.at(-1)?.message ?? 'failed'));
        } catch (caught) {
            // A capture deleted since the job was made is skipped; anything else that stops a send fails it.
            outcome = caught instanceof NotFoundError ? 'skipped' : 'failed';
            if (outcome === 'failed') error = caught instanceof AppError ? caught.message : String(caught);
            if (!(caught instanceof AppError)) this.deps.log.warn('a replay job send failed', { job: id, event: item.eventId, error: String(caught) });
        }
        if (error !== undefined) {
            this.lastError = `${error} (capture ${item.eventId})`;
            this.failed++;
        }
        try {
            await this.deps.store.record(id, { outcomes: [{ position: item.position, outcome }], ...(error !== undefined ? { lastError: this.lastError! } : {}) });
        } catch (caught) {
            // Unrecorded, the item stays pending: whoever resumes the job sends it again.
            this.unrecorded++;
            this.deps.log.warn('could not record a replay job send', { job: id, event: item.eventId, error: String(caught) });
        }
        if (spec.stopAfterFailures !== null && this.failed >= spec.stopAfterFailures) this.halt('failures');
    }
}

/** The edit each send applies: the job's method and headers, and re-signing. */
function editOf(spec: ReplayJobRecord['spec']): ReplayEdit {
    const edit: ReplayEdit = { resign: spec.resign };
    if (spec.edits.method !== undefined) edit.method = spec.edits.method;
    if (spec.edits.headers !== undefined) edit.headers = spec.edits.headers;
    return edit;
}
