import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { call } from './helpers.js';

// Bad input to the job routes: 400 with `details` (or 404, 409), never 5xx, never a job, never a send.

let svc: TestService;
let target: Receiver;

beforeAll(async () => {
    target = await startReceiver();
    svc = await startTestService({ input: { rateLimitPerMinute: 0 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
    const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'x' });
    await res.arrayBuffer();
});
afterAll(async () => {
    await svc?.close();
    await target?.close();
});

interface Refusal {
    status: number;
    details?: { path: string; message: string }[];
    message: string;
}

const jobCount = async (): Promise<number> => (await call<{ items: unknown[] }>(svc, 'GET', '/replay-jobs')).body.items.length;

describe('POST /replay-jobs refuses what it cannot run', () => {
    it('refuses a target the SSRF guard blocks with 400 naming `url`, before any job exists', async () => {
        for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.7/hook', 'http://[::1]:9/x', 'http://0x7f000002/', 'ftp://example.com/']) {
            for (const dryRun of [false, true]) {
                const res = await call<Refusal>(svc, 'POST', '/replay-jobs', { filters: `webhookId=${svc.webhookId}`, url, dryRun });
                expect(res.status, url).toBe(400);
                expect(res.body.details?.[0]?.path, url).toBe('url');
            }
        }
        const blocked = await call<Refusal>(svc, 'POST', '/replay-jobs', { filters: `webhookId=${svc.webhookId}`, url: 'http://169.254.169.254/' });
        expect(blocked.body.message).toBe('URL resolves to internal/reserved IP range');
        expect(await jobCount()).toBe(0);
        expect(target.requests).toHaveLength(0);
    });

    it('answers 400 with details for unknown fields, no filter, paging or sort, unknown filters, bad URLs and out-of-range numbers', async () => {
        const ok = { filters: `webhookId=${svc.webhookId}`, url: target.url };
        const cases: [string, unknown, string][] = [
            ['unknown field', { ...ok, extra: 1 }, 'extra'],
            ['no filters field', { url: target.url }, '(body)'],
            ['no url', { filters: ok.filters }, '(body)'],
            ['an empty filter string', { ...ok, filters: '' }, 'filters'],
            ['only passive parameters', { ...ok, filters: 'key=abc&_=1' }, 'filters'],
            ['a paging parameter', { ...ok, filters: `${ok.filters}&limit=5` }, 'filters'],
            ['a sort parameter', { ...ok, filters: `${ok.filters}&sort=timestamp:asc` }, 'filters'],
            ['a cursor', { ...ok, filters: `${ok.filters}&cursor=` }, 'filters'],
            ['an unknown filter', { ...ok, filters: 'colour=red' }, 'filters'],
            ['a bad filter value', { ...ok, filters: 'statusCode[gte]=lots' }, 'filters'],
            ['a URL that is no URL', { ...ok, url: 'not a url' }, 'url'],
            ['a URL with credentials', { ...ok, url: 'http://u:p@127.0.0.1:9/' }, 'url'],
            ['ratePerSecond 0', { ...ok, ratePerSecond: 0 }, 'ratePerSecond'],
            ['ratePerSecond 1001', { ...ok, ratePerSecond: 1001 }, 'ratePerSecond'],
            ['ratePerSecond as text', { ...ok, ratePerSecond: '10' }, 'ratePerSecond'],
            ['concurrency 0', { ...ok, concurrency: 0 }, 'concurrency'],
            ['concurrency 33', { ...ok, concurrency: 33 }, 'concurrency'],
            ['concurrency 1.5', { ...ok, concurrency: 1.5 }, 'concurrency'],
            ['stopAfterFailures 0', { ...ok, stopAfterFailures: 0 }, 'stopAfterFailures'],
            ['an unknown order', { ...ok, order: 'sideways' }, 'order'],
            ['dryRun as text', { ...ok, dryRun: 'yes' }, 'dryRun'],
            ['a body edit', { ...ok, edits: { body: 'x' } }, 'edits.body'],
            ['a CONNECT edit', { ...ok, edits: { method: 'CONNECT' } }, 'edits'],
            ['an edited framing header', { ...ok, edits: { headers: { 'Content-Length': '1' } } }, 'edits'],
            ['resign without a secret', { ...ok, resign: true }, 'resign'],
            ['not an object', [ok], '(body)'],
        ];
        for (const [what, body, path] of cases) {
            const res = await call<Refusal>(svc, 'POST', '/replay-jobs', body);
            expect(res.status, what).toBe(400);
            expect(res.body.details?.map((d) => d.path), what).toContain(path);
        }
        const notJson = await svc.fetch('/replay-jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"filters":' });
        expect(notJson.status).toBe(400);
        expect(await jobCount()).toBe(0);
        expect(target.requests).toHaveLength(0);
    });

    it('answers 404 for an unknown job on every route, and 400 for a bad retry body', async () => {
        for (const [method, path] of [['GET', '/replay-jobs/rj_nope'], ['DELETE', '/replay-jobs/rj_nope'], ['POST', '/replay-jobs/rj_nope/retry'], ['GET', '/replay-jobs/rj_nope/stream']] as const) {
            const res = await call<Refusal>(svc, method, path);
            expect(res.status, `${method} ${path}`).toBe(404);
        }
        const res = await call<Refusal>(svc, 'POST', '/replay-jobs/rj_nope/retry', { concurrency: 99 });
        expect(res.status).toBe(400);
        expect(res.body.details?.[0]?.path).toBe('concurrency');
        expect((await svc.fetch('/replay-jobs', { method: 'PUT' })).status).toBe(405);
    });
});
