import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook } from '../manage/helpers.js';

// "A rule that matches a request matches it as GET /logs with the same parameters would": every
// request below is sent to a webhook whose one rule has the `when` under test; then the `when` runs
// as /logs parameters over that webhook's captures, and the captures /logs lists must be exactly
// those the rule answered. Runs in both passes (SQLite, and PostgreSQL with TEST_PG=1).

type When = Record<string, string | number | (string | number)[]>;

interface Sent {
    method: string;
    sub?: string;
    ip: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
}

const json1 = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1', amount: 4200, items: [{ sku: 'A1' }, { sku: 'B2' }] } });
const REQUESTS: Sent[] = [
    { method: 'POST', sub: '/sub/a?x=1&y=two', ip: '203.0.113.7', headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0', 'idempotency-key': 'k1' }, body: json1 },
    { method: 'POST', ip: '203.0.113.9', headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0', 'idempotency-key': 'k2' }, body: '{"type":"invoice.voided","data":{"id":"in_2","amount":1.50}}' },
    { method: 'PUT', sub: '?mode=test', ip: '198.51.100.1', headers: { 'content-type': 'text/plain', 'user-agent': 'curl/8.0' }, body: 'hello World' },
    { method: 'GET', sub: '?x=1&x=2', ip: '2001:db8::1', headers: { 'user-agent': 'Mozilla/5.0' } },
    { method: 'POST', ip: '10.1.2.3', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=Hello' },
    { method: 'DELETE', sub: '/sub/b', ip: '10.9.9.9', headers: { 'content-type': 'application/json', 'x-custom': 'Alpha' }, body: '{"name":"Zoë","tags":["x","y"]}' },
    { method: 'POST', ip: '192.0.2.1', headers: { 'content-type': 'application/json' }, body: '{"amount":12345678901234567890,"flag":true,"nothing":null}' },
    { method: 'PATCH', ip: '192.0.2.2', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array([0xff, 0x00, 0x01]) },
    { method: 'POST', ip: '192.0.2.3', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'a'.repeat(2000) }) },
    { method: 'POST', ip: '192.0.2.4', headers: { 'content-type': 'application/json' }, body: '[1,2,{"k":"v"}]' },
    { method: 'POST', ip: '192.0.2.5', headers: { 'content-type': 'application/json' }, body: '{"Type":"INVOICE.PAID"}' },
    { method: 'HEAD', ip: '192.0.2.6' },
    { method: 'POST', ip: '192.0.2.7', headers: { 'content-type': 'text/plain', authorization: 'Bearer s3cret' }, body: '{"looks":"like json"}' },
];

const WHENS: When[] = [
    {},
    { method: 'post' },
    { method: 'PUT' },
    { requestUrl: '/sub/' },
    { requestUrl: 'X=1' },
    { contentType: 'json' },
    { contentType: 'FORM' },
    { userAgent: 'stripe' },
    { remoteIp: '203.0.113.0/24' },
    { remoteIp: '2001:db8::/32' },
    { remoteIp: '198.51.100.1' },
    { size: 0 },
    { 'size[gte]': 100 },
    { 'size[lt]': 20, method: 'POST' },
    { headers: 'idempotency' },
    { 'headers[idempotency-key]': 'k1' },
    { 'headers[Idempotency-Key]': 'k2' },
    { 'headers[authorization]': '[REDACTED]' },
    { headers: 's3cret' },
    { query: 'two' },
    { 'query[x]': '2' },
    { 'query[mode]': 'test' },
    { body: 'invoice' },
    { body: 'WORLD' },
    { 'body[type]': 'invoice.paid' },
    { 'body[data.amount]': '4200' },
    { 'body[data.amount]': '1.5' },
    { 'body[data.items.1.sku]': 'B2' },
    { 'body[data.items.sku]': 'A1' },
    { 'body[name]': 'Zoë' },
    { 'body[tags]': 'y' },
    { 'body[amount]': '12345678901234567890' },
    { 'body[flag]': 'true' },
    { 'body[nothing]': 'null' },
    { 'body[1]': '2' },
    { 'body[a]': '1' },
    { 'body[looks]': 'like json' },
    { body: 'aaaaaaaaaa' },
    { method: ['POST'], 'body[type]': 'invoice.voided' },
    { 'body[Type]': 'INVOICE.PAID' },
    { 'headers[x-custom]': 'alpha' },
    { headers: 'ALPHA', 'size[gt]': 10 },
];

interface Outcome {
    when: When;
    answered: string[];
    listed: string[];
    byName: string[];
    all: number;
}

const params = (when: When): URLSearchParams => {
    const p = new URLSearchParams();
    for (const [key, value] of Object.entries(when)) for (const v of Array.isArray(value) ? value : [value]) p.append(key, String(v));
    return p;
};

describe('a rule matches exactly the captures GET /logs lists for its `when`', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 }, env: { TRUST_PROXY: '1' } });
    });
    afterAll(() => svc.close());

    it(`holds for ${WHENS.length} rules × ${REQUESTS.length} requests`, async () => {
        const check = async (when: When, i: number): Promise<Outcome> => {
            const name = `w${i}`;
            const hook = await createWebhook(svc, { response: { rules: [{ name, when, answer: { statusCode: 299 } }] } });
            const answered = new Set<string>();
            const all = new Set<string>();
            for (const r of REQUESTS) {
                const res = await svc.fetch(`/webhook/${hook.id}${r.sub ?? ''}`, { method: r.method, headers: { 'x-forwarded-for': r.ip, ...r.headers }, ...(r.body === undefined ? {} : { body: r.body }) });
                await res.arrayBuffer();
                const requestId = res.headers.get('x-request-id')!;
                all.add(requestId);
                if (res.status === 299) answered.add(requestId);
            }
            const query = params(when);
            query.set('webhookId', hook.id);
            const listed = await json<{ items: { requestId: string }[] }>(await svc.fetch(`/logs?${query}`));
            const byName = await json<{ items: { requestId: string }[] }>(await svc.fetch(`/logs?answeredBy=${name}`));
            return { when, answered: [...answered].sort(), listed: listed.items.map((x) => x.requestId).sort(), byName: byName.items.map((x) => x.requestId).sort(), all: all.size };
        };
        // A few rules at a time: the management routes bound the queries they run at once.
        const outcomes: Outcome[] = [];
        for (let i = 0; i < WHENS.length; i += 6) outcomes.push(...(await Promise.all(WHENS.slice(i, i + 6).map((when, j) => check(when, i + j)))));
        for (const o of outcomes) {
            expect(o.answered, `rule ${JSON.stringify(o.when)}`).toEqual(o.listed);
            expect(o.byName, `answeredBy for ${JSON.stringify(o.when)}`).toEqual(o.answered);
        }
        // The pairs decide something: most rules match some requests and not others.
        const telling = outcomes.filter((o) => o.answered.length > 0 && o.answered.length < o.all).length;
        expect(telling).toBeGreaterThanOrEqual(30);
    });
});
