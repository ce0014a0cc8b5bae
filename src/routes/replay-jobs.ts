import { Router, type Request, type Response } from 'express';
import type { AppDeps } from './deps.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { sendJson } from '../http/respond.js';
import { streamJob } from './replay-job-stream.js';
import { readJson } from './webhooks.js';

type WithId = Request<{ id: string }>;

/**
 * Bulk replay jobs (issue 37): POST /replay-jobs (a dry run, or a job), GET /replay-jobs,
 * GET and DELETE /replay-jobs/:id, POST /replay-jobs/:id/retry, GET /replay-jobs/:id/stream.
 */
export function replayJobRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const jobs = deps.replayJobs;
    const router = Router(ROUTER_OPTIONS);
    router
        .route('/replay-jobs')
        .get(...mw.guarded, async (_req, res) => sendJson(res, 200, { items: await jobs.list() }))
        .post(...mw.guarded, async (req, res) => {
            const { value, text } = await readJson(req);
            const made = await jobs.create(value, text);
            if ('dryRun' in made) return sendJson(res, 200, made.dryRun);
            sendJson(res, 202, made.job, { Location: made.job.statusUrl });
        })
        .all(mw.notAllowed);
    router
        .route('/replay-jobs/:id')
        .get(...mw.guarded, async (req: WithId, res: Response) => sendJson(res, 200, await jobs.get(req.params.id)))
        // A job that ended with this call answers 200; a running one 202: it ends once its sends in flight have.
        .delete(...mw.guarded, async (req: WithId, res: Response) => {
            const job = await jobs.cancel(req.params.id);
            sendJson(res, job.state === 'queued' || job.state === 'running' ? 202 : 200, job);
        })
        .all(mw.notAllowed);
    router
        .route('/replay-jobs/:id/retry')
        .post(...mw.guarded, async (req: WithId, res: Response) => {
            const { value, text } = await readJson(req);
            const job = await jobs.retry(req.params.id, value, text);
            sendJson(res, 202, job, { Location: job.statusUrl });
        })
        .all(mw.notAllowed);
    router
        .route('/replay-jobs/:id/stream')
        .get(...mw.guarded, (req: WithId, res: Response) => streamJob(deps, res, req.params.id))
        .all(mw.notAllowed);
    return router;
}
