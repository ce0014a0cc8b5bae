import type { ServerResponse } from 'node:http';
import type { AppDeps } from './deps.js';
import type { ReplayJob } from '../api/replay-jobs.js';
import { AppError } from '../errors.js';
import { SSE_HEADERS } from '../live/hub.js';

/** A snapshot is sent at most this often: about four a second, however fast the job moves. */
const SNAPSHOT_MS = 250;
const HEARTBEAT_MS = 15_000;
/** Job streams open at once (apart from the 100 of /log-stream). */
const MAX_STREAMS = 100;
const FINAL: ReadonlySet<string> = new Set(['done', 'cancelled', 'failed']);

let open = 0;

/**
 * GET /replay-jobs/:id/stream: Server-Sent Events of a job, a `data:` frame with the job (as GET
 * /replay-jobs/:id answers it) at once and after each change, at most about four a second, and
 * ending after the frame of its final state. The job is read from storage, so any instance streams
 * a job another one runs. Plain `data:` frames, as /log-stream's: no named events.
 */
export async function streamJob(deps: AppDeps, res: ServerResponse, id: string): Promise<void> {
    // Unknown job: 404 before the stream opens.
    const first = await deps.replayJobs.get(id);
    if (open >= MAX_STREAMS) throw new AppError(503, `Maximum of ${MAX_STREAMS} replay job streams reached`);
    open++;
    res.socket?.setNoDelay(true);
    res.writeHead(200, SSE_HEADERS);
    let last = '';
    let reading = false;
    const send = (job: ReplayJob): void => {
        const text = JSON.stringify(job);
        if (text !== last) res.write(`data: ${text}\n\n`);
        last = text;
        if (FINAL.has(job.state)) end();
    };
    const poll = setInterval(() => {
        if (reading) return;
        // Shutting down: the stream ends so the server can close.
        if (!deps.readiness.accepting) return end();
        reading = true;
        deps.replayJobs.get(id).then(send, end).finally(() => (reading = false));
    }, SNAPSHOT_MS);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    let ended = false;
    function end(): void {
        if (ended) return;
        ended = true;
        open--;
        clearInterval(poll);
        clearInterval(heartbeat);
        if (!res.writableEnded) res.end();
    }
    res.on('close', end);
    res.write(': connected\n\n');
    send(first);
}
