import type { ReplayJobRecord } from '../../storage/replay-job-store.js';
import { JobRun, type RunDeps } from './runner.js';

/** How the job runner of an instance works. */
export interface SchedulerOptions {
    /** How often free jobs are looked for (another instance's, one left by a dead one, one made elsewhere). */
    pollMs: number;
    /** Jobs this instance runs at once. */
    maxRunning: number;
    /** Whether jobs may run yet: not while the read model still catches up from the dataset (its captures would read as deleted). */
    mayRun(): boolean;
}

/**
 * The runner of bulk replay jobs in this instance: it claims free jobs (at start: those a stopped or
 * killed process left; then every `pollMs`, and at once when a job is made here), runs each, and on
 * stop lets the sends in flight end and gives its jobs back for the next start or another instance.
 */
export class ReplayJobScheduler {
    private readonly runs = new Map<string, { run: JobRun; done: Promise<void> }>();
    private timer: NodeJS.Timeout | undefined;
    private claiming: Promise<void> | undefined;
    private again = false;
    private stopped = false;

    constructor(private readonly deps: RunDeps, private readonly options: SchedulerOptions) {}

    /** Starts looking for jobs. */
    start(): void {
        this.timer = setInterval(() => this.kick(), this.options.pollMs);
        this.timer.unref();
        this.kick();
    }

    /** Looks for free jobs now. */
    kick(): void {
        if (this.stopped) return;
        if (this.claiming) {
            this.again = true;
            return;
        }
        this.claiming = this.claimAll()
            .catch((error: unknown) => this.deps.log.warn('could not claim replay jobs', { error: String(error) }))
            .finally(() => {
                this.claiming = undefined;
                if (this.again) {
                    this.again = false;
                    this.kick();
                }
            });
    }

    private async claimAll(): Promise<void> {
        while (!this.stopped && this.options.mayRun() && this.runs.size < this.options.maxRunning) {
            const job = await this.deps.store.claim();
            if (!job) return;
            this.launch(job);
        }
    }

    private launch(job: ReplayJobRecord): void {
        const run = new JobRun(this.deps, job);
        if (this.stopped) run.stop();
        const done = run
            .run()
            .catch((error: unknown) => this.deps.log.error('a replay job failed to run', { job: job.id, error: error instanceof Error ? error.stack : String(error) }))
            .finally(() => {
                this.runs.delete(job.id);
                // After a store failure the next look waits for the poll, so a failing store is not hammered.
                if (!run.storeFailed) this.kick();
            });
        this.runs.set(job.id, { run, done });
    }

    /** Asks a job to stop: recorded for every instance, and at once to its run when this instance runs it. */
    async cancel(id: string): Promise<ReplayJobRecord | undefined> {
        const job = await this.deps.store.requestCancel(id);
        this.runs.get(id)?.run.cancel();
        return job;
    }

    /** Stops claiming, stops every run after its sends in flight (waiting up to `ms`), and gives the jobs back. */
    async stop(ms: number): Promise<void> {
        this.stopped = true;
        clearInterval(this.timer);
        await this.claiming;
        const runs = [...this.runs.values()];
        for (const { run } of runs) run.stop();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(runs.map((r) => r.done)), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
        clearTimeout(timer);
    }
}
