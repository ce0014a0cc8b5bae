import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { cancelJob, dryRun, followJob, hasEnded, listJobs, retryJob, startJob, type JobAsk } from '../replay-jobs.js';
import type { ReplayJob, ReplayJobDryRun } from '../types.js';

const TARGET_KEY = 'whd.replayTarget';
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * "Replay N matching…" beside the filters: asks for the target, shows the dry run's count, then the
 * job's progress with a cancel button, and the list of jobs. `query` is the applied filters as GET
 * /logs parameters; a job needs at least one.
 */
export function BulkReplay({ query }: { query: string }): JSX.Element {
    const [matched, setMatched] = useState<number | null>(null);
    const [open, setOpen] = useState(false);
    const [target, setTarget] = useState(() => localStorage.getItem(TARGET_KEY) ?? '');
    const [rate, setRate] = useState('10');
    const [preview, setPreview] = useState<ReplayJobDryRun | null>(null);
    const [active, setActive] = useState<ReplayJob | null>(null);
    const [jobs, setJobs] = useState<ReplayJob[]>([]);
    const [error, setError] = useState('');
    const following = useRef<AbortController | null>(null);

    // The count on the button follows the applied filters.
    useEffect(() => {
        setMatched(null);
        setPreview(null);
        if (!query) return;
        let live = true;
        getJson<{ total: number }>(`/logs?limit=1&${query}`).then((page) => live && setMatched(page.total), () => undefined);
        return () => void (live = false);
    }, [query]);

    const refresh = (): void => void listJobs().then(setJobs, (e: unknown) => setError(message(e)));
    useEffect(() => (open ? refresh() : undefined), [open]);
    useEffect(() => () => following.current?.abort(), []);

    const ask = (): JobAsk => ({ filters: query, url: target.trim(), ratePerSecond: Number(rate) || 10, concurrency: 1, order: 'oldest' });
    const run = async (step: () => Promise<void>): Promise<void> => {
        setError('');
        try {
            await step();
        } catch (e) {
            setError(message(e));
        }
    };
    const follow = (job: ReplayJob): void => {
        following.current?.abort();
        setActive(job);
        if (hasEnded(job)) return;
        const controller = new AbortController();
        following.current = controller;
        followJob(job.id, setActive, controller.signal).then(refresh, (e: unknown) => controller.signal.aborted || setError(message(e)));
    };
    const count = (): Promise<void> => run(async () => {
        localStorage.setItem(TARGET_KEY, target);
        setPreview(await dryRun(ask()));
    });
    const start = (): Promise<void> => run(async () => {
        const job = await startJob(ask());
        setPreview(null);
        follow(job);
        refresh();
    });

    const label = !query ? 'Replay matching… (set a filter first)' : matched === null ? 'Replay matching…' : `Replay ${matched} matching…`;
    return (
        <section class="bulk" aria-label="Bulk replay">
            <div class="bulk-row">
                <button type="button" class="btn small" data-testid="bulk-open" disabled={!query && !open} onClick={() => setOpen(!open)}>{open ? 'Close bulk replay' : label}</button>
            </div>
            {open && (
                <div class="bulk-panel">
                    <form class="bulk-form" onSubmit={(e) => (e.preventDefault(), void (preview ? start() : count()))}>
                        <input type="url" aria-label="Bulk replay target URL" placeholder="https://your-app.example/webhooks" required value={target} onInput={(e) => (setTarget(e.currentTarget.value), setPreview(null))} />
                        <label>rate/s <input type="number" aria-label="Sends per second" min={1} max={1000} size={4} value={rate} onInput={(e) => (setRate(e.currentTarget.value), setPreview(null))} /></label>
                        {preview ? (
                            <button type="submit" class="btn primary" data-testid="bulk-start" disabled={!query || preview.matched === 0}>Start replay of {preview.matched}</button>
                        ) : (
                            <button type="submit" class="btn" data-testid="bulk-count" disabled={!query}>Count</button>
                        )}
                    </form>
                    {preview && (
                        <p data-testid="bulk-preview">
                            {preview.matched} {preview.matched === 1 ? 'capture matches' : 'captures match'} {query}; at {rate}/s that takes at least {preview.estimatedSeconds} s. Each goes to {preview.url}.
                        </p>
                    )}
                    {error && <p class="error">{error}</p>}
                    {active && <Progress job={active} onCancel={() => void run(async () => follow(await cancelJob(active.id)))} />}
                    <JobList jobs={jobs} onOpen={follow} onRetry={(id) => void run(async () => (follow(await retryJob(id)), refresh()))} />
                </div>
            )}
        </section>
    );
}

function Progress({ job, onCancel }: { job: ReplayJob; onCancel(): void }): JSX.Element {
    const done = job.sent + job.skipped;
    return (
        <div class="bulk-progress" data-testid="job-progress" data-state={job.state}>
            <progress max={Math.max(1, job.total)} value={done} />
            <span>
                {job.state}: {done} of {job.total} · {job.succeeded} ok · {job.failed} failed{job.skipped ? ` · ${job.skipped} skipped` : ''}
            </span>
            {!hasEnded(job) && <button type="button" class="btn small" data-testid="job-cancel" disabled={job.cancelRequested} onClick={onCancel}>{job.cancelRequested ? 'Cancelling…' : 'Cancel'}</button>}
            {job.lastError && <span class="muted" title={job.lastError}>last error: {job.lastError}</span>}
        </div>
    );
}

function JobList({ jobs, onOpen, onRetry }: { jobs: ReplayJob[]; onOpen(job: ReplayJob): void; onRetry(id: string): void }): JSX.Element {
    if (jobs.length === 0) return <p class="muted">No replay jobs yet.</p>;
    return (
        <table class="bulk-jobs" data-testid="job-list">
            <tbody>
                {jobs.map((job) => (
                    <tr key={job.id} data-job={job.id}>
                        <td><button type="button" class="link" onClick={() => onOpen(job)}>{new Date(job.createdAt).toLocaleString()}</button></td>
                        <td>{job.state}</td>
                        <td>{job.sent + job.skipped}/{job.total}</td>
                        <td>{job.failed} failed</td>
                        <td class="mono">{job.url}</td>
                        <td>{hasEnded(job) && job.failed > 0 && <button type="button" class="btn small" onClick={() => onRetry(job.id)}>Retry failed</button>}</td>
                    </tr>
                ))}
            </tbody>
        </table>
    );
}
