import { systemClock, type Clock } from '../../src/lib/clock.js';
import type { NewEvent } from '../../src/storage/types.js';
import { json, startTestService, type TestService } from '../helpers/service.js';

/** 2025-01-01T00:00:00Z: seeded event i is captured at T0 + i minutes. */
export const T0 = Date.UTC(2025, 0, 1);
export const MINUTE = 60_000;

/** A clock whose wall time the test sets; durations and sleeps stay real. */
export interface TestClock extends Clock {
    set(ms: number): void;
}

/** A settable clock starting at T0. */
export function testClock(): TestClock {
    let current = T0;
    return { now: () => current, monotonic: () => systemClock.monotonic(), sleep: (ms) => systemClock.sleep(ms), set: (ms) => (current = ms) };
}

/** One request to send: which webhook (index), how, from where and what. */
export interface Seed {
    wh: number;
    method: string;
    status?: number;
    ip: string;
    ua: string;
    contentType?: string;
    query?: string;
    headers?: Record<string, string>;
    body?: string;
}

/** The known set of captured events the filter tests count against (event i at T0 + i minutes). */
export const SEEDS: readonly Seed[] = [
    /* 0 */ { wh: 0, method: 'POST', ip: '10.0.0.1', ua: 'Stripe/1.0 (+https://stripe.com)', contentType: 'application/json', query: 'a=1', headers: { 'X-Custom': 'alpha' }, body: '{"type":"order.created","data":{"order":{"id":"o1","total":10.5}},"tags":["x","y"]}' },
    /* 1 */ { wh: 0, method: 'POST', status: 201, ip: '10.0.0.2', ua: 'Stripe/1.0 (+https://stripe.com)', contentType: 'application/json', query: 'a=2&tag=x&tag=y', body: '{"type":"order.paid","data":{"order":{"id":"o2","total":20}},"flag":true}' },
    /* 2 */ { wh: 0, method: 'GET', ip: '10.0.1.5', ua: 'curl/8.5.0', query: 'search=Hello%20World' },
    /* 3 */ { wh: 1, method: 'PUT', status: 404, ip: '192.168.1.10', ua: 'GitHub-Hookshot/abc', contentType: 'application/json; charset=utf-8', body: '{"ref":"refs/heads/main","commits":[{"id":"c1"},{"id":"c2"}],"0":"zero-key"}' },
    /* 4 */ { wh: 1, method: 'DELETE', status: 500, ip: '2001:db8::1', ua: 'python-requests/2.31', contentType: 'text/plain', body: 'plain text Body with 100% and under_score' },
    /* 5 */ { wh: 1, method: 'PATCH', status: 503, ip: '2001:db8::ff', ua: 'python-requests/2.31', contentType: 'application/x-www-form-urlencoded', body: 'a=1&b=2' },
    /* 6 */ { wh: 2, method: 'POST', status: 422, ip: '2001:db8:1::1', ua: 'Slackbot 1.0', contentType: 'application/json', headers: { 'X-Custom': 'beta' }, body: '{"nested":{"deep":{"value":null}},"n":1.50,"zero":0,"flag":false}' },
    /* 7 */ { wh: 2, method: 'OPTIONS', status: 204, ip: '172.16.5.4', ua: 'Mozilla/5.0', query: 'k.with.dots=1' },
    /* 8 */ { wh: 2, method: 'POST', status: 400, ip: '::ffff:10.0.0.9', ua: 'Stripe/1.0 (+https://stripe.com)', contentType: 'application/json', body: '{"type":"ORDER.CREATED","data":{"order":{"id":"o3","total":"10.5"}},"tags":["z"]}' },
    /* 9 */ { wh: 0, method: 'HEAD', ip: '10.0.0.1', ua: 'curl/8.5.0' },
];

/** Starts a service with three webhooks, a settable clock, no management rate limit and X-Forwarded-For trusted. */
export async function startQueryService(): Promise<{ svc: TestService; clock: TestClock; webhooks: string[] }> {
    const clock = testClock();
    const svc = await startTestService({ input: { urlCount: 3, rateLimitPerMinute: 0 }, clock, env: { TRUST_PROXY: '1' } });
    const webhooks = svc.deps.webhooks.active().map((w) => w.id);
    return { svc, clock, webhooks };
}

/** Sends `seed` for real; event `index` is captured at T0 + index minutes. */
export async function sendSeed(svc: TestService, clock: TestClock, webhooks: string[], seed: Seed, index: number): Promise<Response> {
    clock.set(T0 + index * MINUTE);
    // Sent as written, so that the stored requestUrl keeps its percent-escapes.
    const qs = [seed.query, seed.status === undefined ? undefined : `__status=${seed.status}`].filter(Boolean).join('&');
    const headers: Record<string, string> = { 'user-agent': seed.ua, 'x-forwarded-for': seed.ip, ...seed.headers };
    if (seed.contentType) headers['content-type'] = seed.contentType;
    const res = await svc.fetch(`/webhook/${webhooks[seed.wh]}${qs ? `?${qs}` : ''}`, { method: seed.method, headers, ...(seed.body !== undefined ? { body: seed.body } : {}) });
    await res.arrayBuffer();
    return res;
}

/** Sends every seed in order. */
export async function sendSeeds(svc: TestService, clock: TestClock, webhooks: string[]): Promise<void> {
    for (const [i, seed] of SEEDS.entries()) await sendSeed(svc, clock, webhooks, seed, i);
}

/** A query service holding the seed events, sent over HTTP. */
export async function startSeededService(): Promise<TestService> {
    const started = await startQueryService();
    await sendSeeds(started.svc, started.clock, started.webhooks);
    return started.svc;
}

/** A stored event with only what the test cares about set; the rest is plausible filler. */
export function storedEvent(over: Partial<NewEvent> & Pick<NewEvent, 'id' | 'webhookId'>): NewEvent {
    return {
        timestamp: T0, method: 'POST', statusCode: 200, size: 0, processingTime: 1, requestId: `req-${over.id}`,
        requestUrl: `/webhook/${over.webhookId}`, contentType: '', remoteIp: '127.0.0.1', userAgent: '', headers: {}, query: {},
        bodyKind: 'empty', responseHeaders: {}, responseBody: 'OK', ...over,
    };
}

/** A GET /logs answer as the tests read it. */
export interface LogsAnswer {
    filters?: Record<string, unknown>;
    count: number;
    total?: number;
    items: { id: string; webhookId: string; timestamp: string; method: string; statusCode: number; size: number; processingTime: number; requestUrl: string; signatureValid: boolean | null; signatureProvider: string | null; detailUrl: string }[];
    nextOffset?: number | null;
    nextCursor?: string | null;
    nextPageUrl: string | null;
    message?: string;
    parameter?: string;
}

/** GET /logs?<qs>, parsed; fails loudly when the status differs from `status`. */
export async function logs(svc: TestService, qs: string, status = 200): Promise<LogsAnswer> {
    const res = await svc.fetch(`/logs${qs ? `?${qs}` : ''}`);
    const body = await json<LogsAnswer>(res);
    if (res.status !== status) throw new Error(`GET /logs?${qs}: expected ${status}, got ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return body;
}
