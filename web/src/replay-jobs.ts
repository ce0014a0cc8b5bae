// Bulk replay jobs from the page: their API calls, and the live progress of one.
import { authHeaders, getJson, send } from './api.js';
import type { ReplayJob, ReplayJobDryRun } from './types.js';

/** What the page asks a job for. */
export interface JobAsk {
    filters: string;
    url: string;
    ratePerSecond: number;
    concurrency: number;
    order: 'oldest' | 'newest';
}

/** POST /replay-jobs with dryRun: the count, the first few, the least time. */
export async function dryRun(ask: JobAsk): Promise<ReplayJobDryRun> {
    return (await send<ReplayJobDryRun>('POST', '/replay-jobs', { ...ask, dryRun: true }))!;
}

/** POST /replay-jobs: the job, made. */
export async function startJob(ask: JobAsk): Promise<ReplayJob> {
    return (await send<ReplayJob>('POST', '/replay-jobs', ask))!;
}

/** GET /replay-jobs: the latest jobs, newest first. */
export async function listJobs(): Promise<ReplayJob[]> {
    return (await getJson<{ items: ReplayJob[] }>('/replay-jobs')).items;
}

/** DELETE /replay-jobs/:id. */
export async function cancelJob(id: string): Promise<ReplayJob> {
    return (await send<ReplayJob>('DELETE', `/replay-jobs/${encodeURIComponent(id)}`))!;
}

/** POST /replay-jobs/:id/retry: a new job over the failed sends. */
export async function retryJob(id: string): Promise<ReplayJob> {
    return (await send<ReplayJob>('POST', `/replay-jobs/${encodeURIComponent(id)}/retry`))!;
}

/** Whether a job has ended. */
export const hasEnded = (job: ReplayJob): boolean => job.state === 'done' || job.state === 'cancelled' || job.state === 'failed';

/**
 * Follows GET /replay-jobs/:id/stream (read over fetch, so the key travels as a header): calls
 * `onJob` with each snapshot until the job ends or `signal` aborts. Resolves when the stream ends.
 */
export async function followJob(id: string, onJob: (job: ReplayJob) => void, signal: AbortSignal): Promise<void> {
    const res = await fetch(`/replay-jobs/${encodeURIComponent(id)}/stream`, { headers: { ...authHeaders(), Accept: 'text/event-stream' }, signal, cache: 'no-store' });
    if (!res.ok || !res.body) throw new Error(`${res.status} ${res.statusText}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
            if (data) onJob(JSON.parse(data) as ReplayJob);
        }
    }
}
