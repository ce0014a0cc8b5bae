import { until } from '../helpers/until.js';
import type { Receiver } from '../replay/receiver.js';

/** Anything that speaks to a service: an in-process TestService or a ServiceProcess. */
export interface Svc {
    fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** A job as the tests read it. */
export interface JobView {
    id: string;
    state: 'queued' | 'running' | 'done' | 'cancelled' | 'failed';
    total: number;
    sent: number;
    succeeded: number;
    failed: number;
    skipped: number;
    url: string;
    filters: string;
    retryOf: string | null;
    cancelRequested: boolean;
    lastError: string | null;
    startedAt: string | null;
    finishedAt: string | null;
    statusUrl: string;
    streamUrl: string;
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Sends JSON with `method` and answers the status and parsed body. */
export async function call<T = Record<string, unknown>>(svc: Svc, method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }> {
    const res = await svc.fetch(path, body === undefined ? { method } : { method, headers: JSON_TYPE, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown;
    try {
        parsed = JSON.parse(text);
    } catch {
        throw new Error(`${method} ${path} → ${res.status}, not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
}

/** POST /replay-jobs; fails the test unless it answers `expect`. */
export async function createJob(svc: Svc, body: Record<string, unknown>, expect = 202): Promise<JobView> {
    const res = await call<JobView>(svc, 'POST', '/replay-jobs', body);
    if (res.status !== expect) throw new Error(`POST /replay-jobs → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
}

/** GET /replay-jobs/:id. */
export async function getJob(svc: Svc, id: string): Promise<JobView> {
    const res = await call<JobView>(svc, 'GET', `/replay-jobs/${id}`);
    if (res.status !== 200) throw new Error(`GET /replay-jobs/${id} → ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
}

/** Waits until the job is in one of `states` (by default a final one) and answers it. */
export function waitForJob(svc: Svc, id: string, states: JobView['state'][] = ['done', 'cancelled', 'failed'], timeoutMs = 30_000): Promise<JobView> {
    return until(`job ${id} to be ${states.join(' or ')}`, async () => {
        const job = await getJob(svc, id);
        return states.includes(job.state) ? job : undefined;
    }, { timeoutMs, intervalMs: 50 });
}

/** Captures one request per body on webhook `webhookId` (the i-th with `?n=i`), `parallel` at a time. */
export async function captureAll(svc: Svc, webhookId: string, bodies: (string | Buffer)[], parallel = 1): Promise<void> {
    for (let i = 0; i < bodies.length; i += parallel) {
        await Promise.all(bodies.slice(i, i + parallel).map(async (body, k) => {
            // `?n=` tells each capture apart in a GET /logs listing (its requestUrl).
            const res = await svc.fetch(`/webhook/${webhookId}?n=${i + k}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
            await res.arrayBuffer();
            if (res.status >= 300) throw new Error(`capture → ${res.status}`);
        }));
    }
}

/** Makes a new webhook and answers its id. */
export async function newWebhook(svc: Svc): Promise<string> {
    const res = await call<{ id: string }>(svc, 'POST', '/webhooks', {});
    if (res.status !== 201) throw new Error(`POST /webhooks → ${res.status}`);
    return res.body.id;
}

/**
 * The `n` of each capture of webhook `webhookId` in the order GET /logs sorts them oldest first: by
 * capture time, then id (captures of one millisecond are ordered by their ids), the order a job sends.
 */
export async function oldestFirst(svc: Svc, webhookId: string, limit = 10_000): Promise<number[]> {
    const page = await call<{ items: { requestUrl: string }[] }>(svc, 'GET', `/logs?webhookId=${webhookId}&sort=timestamp:asc&limit=${limit}`);
    return page.body.items.map((i) => Number(new URL(i.requestUrl, 'http://x').searchParams.get('n')));
}

/** How often each capture `{"n":i}` reached the receiver. */
export function sendsPerCapture(receiver: Receiver): Map<number, number> {
    const counts = new Map<number, number>();
    for (const r of receiver.requests) {
        const n = (JSON.parse(r.body.toString()) as { n: number }).n;
        counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    return counts;
}
