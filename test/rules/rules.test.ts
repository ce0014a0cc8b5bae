import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, sendJson, type ErrorView } from '../manage/helpers.js';
import { openRawSse } from '../stream/sse-client.js';

// Answers by rule (issue 36): the first rule whose `when` matches answers; the rest falls through
// to the sequence, failureRate and fixed answer; the capture records which rule answered.

/** Posts JSON to a webhook; the answer's status, text, headers and X-Request-Id. */
async function post(svc: TestService, id: string, body: unknown, query = '', headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers; requestId: string }> {
    const res = await svc.fetch(`/webhook/${id}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, text: await res.text(), headers: res.headers, requestId: res.headers.get('x-request-id') ?? '' };
}

/** The stored capture of a request id, as GET /logs/:id shows it. */
async function captureOf(svc: TestService, requestId: string): Promise<Record<string, unknown>> {
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${requestId}`));
    return json(await svc.fetch(`/logs/${page.items[0]!.id}`));
}

const INVOICE_RULES = [
    { name: 'paid', when: { 'body[type]': 'invoice.paid' }, answer: { statusCode: 200, body: 'paid ok' } },
    { name: 'voided', when: { 'body[type]': 'invoice.voided' }, answer: { statusCode: 400, body: { error: 'voided' } } },
    { when: { body: 'invoice' }, answer: { statusCode: 202 } },
];

describe('answers by rule', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, redactBodyPaths: ['body.card'] } });
    });
    afterAll(() => svc.close());

    it('answer 200 for invoice.paid and 400 for invoice.voided; the first matching rule wins', async () => {
        const hook = await createWebhook(svc, { response: { rules: INVOICE_RULES } });
        const paid = await post(svc, hook.id, { type: 'invoice.paid' });
        expect([paid.status, paid.text]).toEqual([200, 'paid ok']);
        const voided = await post(svc, hook.id, { type: 'invoice.voided' });
        expect([voided.status, JSON.parse(voided.text)]).toEqual([400, { error: 'voided' }]);
        expect(voided.headers.get('content-type')).toContain('application/json');
        // Both the first and the third rule match a paid invoice: the first answered.
        expect((await captureOf(svc, paid.requestId)).answeredBy).toEqual({ index: 0, name: 'paid' });
        const other = await post(svc, hook.id, { type: 'invoice.created' });
        expect(other.status).toBe(202);
        expect((await captureOf(svc, other.requestId)).answeredBy).toEqual({ index: 2, name: null });
    });

    it('let a request no rule matches fall through to the sequence, which rules do not move on', async () => {
        const hook = await createWebhook(svc, { response: { body: 'fixed', rules: [{ when: { method: 'PUT' }, answer: { statusCode: 201 } }], sequence: [{ statusCode: 500 }, { statusCode: 200 }] } });
        const put = await svc.fetch(`/webhook/${hook.id}`, { method: 'PUT', body: 'x' });
        expect(put.status).toBe(201);
        // The rule took the PUT: the sequence still starts at its first step.
        expect((await post(svc, hook.id, {})).status).toBe(500);
        const second = await post(svc, hook.id, {});
        expect([second.status, second.text]).toEqual([200, 'fixed']);
        expect((await captureOf(svc, second.requestId)).answeredBy).toBeUndefined();
    });

    it("fill a rule's unset fields from the webhook's own answer, and still let ?__status= set the status", async () => {
        const hook = await createWebhook(svc, { response: { statusCode: 202, body: 'base body', headers: { 'X-Base': '1' }, rules: [{ name: 'r', when: {}, answer: { statusCode: 409 } }] } });
        const ruled = await post(svc, hook.id, {});
        expect([ruled.status, ruled.text, ruled.headers.get('x-base')]).toEqual([409, 'base body', '1']);
        const overridden = await post(svc, hook.id, {}, '?__status=418');
        expect([overridden.status, overridden.text]).toEqual([418, 'base body']);
        expect((await captureOf(svc, overridden.requestId)).answeredBy).toEqual({ index: 0, name: 'r' });
    });

    it('answer a repeated idempotency key with 409 (a rule per key under test)', async () => {
        const hook = await createWebhook(svc, { response: { rules: [{ name: 'dup', when: { 'headers[idempotency-key]': 'key-1' }, answer: { statusCode: 409, body: { error: 'duplicate {{request.headers.Idempotency-Key}}' } } }] } });
        const dup = await post(svc, hook.id, {}, '', { 'Idempotency-Key': 'key-1' });
        expect([dup.status, JSON.parse(dup.text)]).toEqual([409, { error: 'duplicate key-1' }]);
        expect((await post(svc, hook.id, {}, '', { 'Idempotency-Key': 'key-2' })).status).toBe(200);
    });

    it('match and echo the body as it is stored: redacted paths hold [REDACTED]', async () => {
        const hook = await createWebhook(svc, {
            response: {
                rules: [
                    { name: 'raw', when: { 'body[card]': '4242' }, answer: { statusCode: 451 } },
                    { name: 'redacted', when: { 'body[card]': '[REDACTED]' }, answer: { statusCode: 200, body: { card: '{{request.body.card}}', order: '{{request.body.order}}' } } },
                ],
            },
        });
        const res = await post(svc, hook.id, { card: '4242', order: 'o_9' });
        expect(res.status).toBe(200);
        expect(JSON.parse(res.text)).toEqual({ card: '[REDACTED]', order: 'o_9' });
        // Nothing of the secret reached storage through the answer either.
        expect(JSON.stringify(await captureOf(svc, res.requestId))).not.toContain('4242');
    });

    it('record the rule on the stream entry, and filter the stream and GET /logs with answeredBy=<name>', async () => {
        const hook = await createWebhook(svc, { response: { rules: INVOICE_RULES } });
        const sse = await openRawSse(`${svc.url}/log-stream?webhookId=${hook.id}&answeredBy=voided`);
        try {
            // The paid one comes first: a stream that let it through would show it first.
            await post(svc, hook.id, { type: 'invoice.paid' });
            const voided = await post(svc, hook.id, { type: 'invoice.voided' });
            await sse.until((s) => s.events().length >= 1);
            expect(sse.events().map((e) => [e.data.requestId, e.data.answeredBy])).toEqual([[voided.requestId, { index: 1, name: 'voided' }]]);
            const listed = await json<{ items: { requestId: string }[] }>(await svc.fetch(`/logs?webhookId=${hook.id}&answeredBy=voided`));
            expect(listed.items.map((i) => i.requestId)).toEqual([voided.requestId]);
        } finally {
            sse.close();
        }
    });

    it('keep rule answers inert: the sandbox policy and nosniff go out whatever a rule sets', async () => {
        const hook = await createWebhook(svc, {
            response: { rules: [{ when: {}, answer: { body: '<script>alert(1)</script>', headers: { 'Content-Type': 'text/html', 'Content-Security-Policy': "script-src 'unsafe-inline'", 'X-Content-Type-Options': 'sniff' } } }] },
        });
        const res = await post(svc, hook.id, {});
        expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; sandbox/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    });

    it('refuse answeredBy inside a rule, naming the path (it is a filter of GET /logs, not of a request)', async () => {
        const res = await sendJson(svc, 'POST', '/webhooks', { response: { rules: [{ when: { answeredBy: 'x' }, answer: {} }] } });
        expect(res.status).toBe(400);
        expect((await json<ErrorView>(res)).details).toEqual([{ path: 'response.rules.0.when.answeredBy', message: expect.stringContaining('is not a rule condition parameter') }]);
    });
});
