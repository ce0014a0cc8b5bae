import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook } from '../manage/helpers.js';

// Templates end to end (issue 36): a webhook's fixed answer and a rule's answer are rendered from
// the request, over HTTP, and the capture stores the answer that went out. The renderer's corners
// (escaping, prototype keys, bounds) are test/unit/template.test.ts.

/** Sends `body` to `/webhook/<id><tail>`; the answer. */
async function send(svc: TestService, id: string, tail: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers; requestId: string }> {
    const res = await svc.fetch(`/webhook/${id}${tail}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    return { status: res.status, text: await res.text(), headers: res.headers, requestId: res.headers.get('x-request-id') ?? '' };
}

describe('answer templates over HTTP', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    it("render a webhook's fixed answer from the request, JSON-escaped, and store the answer that went out", async () => {
        const hook = await createWebhook(svc, {
            response: {
                statusCode: 201,
                headers: { 'Content-Type': 'application/json', 'X-Order': '{{request.body.order.id}}' },
                body: '{"order":"{{request.body.order.id}}","total":{{json request.body.order.total}},"lines":{{json request.body.order.lines}},"path":"{{request.path}}","q":"{{request.query.mode}}","ua":"{{request.headers.User-Agent}}","hook":"{{webhook.id}}","missing":"{{request.body.nope}}"}',
            },
        });
        // The total's digits are more than a double holds: they go out as they were sent.
        const sent = '{"order":{"id":"o_\\"7\\"","total":12345678901234567890,"lines":[{"sku":"A"}]}}';
        const res = await send(svc, hook.id, '/orders/7?mode=test', sent, { 'user-agent': 'Shop/2.0' });
        expect(res.status).toBe(201);
        expect(res.text).toContain('"total":12345678901234567890');
        expect(JSON.parse(res.text)).toEqual({ order: 'o_"7"', total: 12345678901234567890, lines: [{ sku: 'A' }], path: '/orders/7', q: 'test', ua: 'Shop/2.0', hook: hook.id, missing: '' });
        expect(res.headers.get('x-order')).toBe('o_"7"');
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.requestId}`));
        const entry = await json<{ responseBody: unknown }>(await svc.fetch(`/logs/${page.items[0]!.id}`));
        expect(entry.responseBody).toBe(res.text);
    });

    it('drop CR and LF a request puts in a header value, and still answer', async () => {
        const hook = await createWebhook(svc, { response: { rules: [{ when: {}, answer: { statusCode: 202, headers: { 'X-Echo': '{{request.body.v}}' }, body: 'id {{request.id}}' } }] } });
        const res = await send(svc, hook.id, '', JSON.stringify({ v: 'a\r\nSet-Cookie: stolen=1\u0000' }));
        expect(res.status).toBe(202);
        expect(res.headers.get('x-echo')).toBe('aSet-Cookie: stolen=1');
        expect(res.headers.get('set-cookie')).toBeNull();
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.requestId}`));
        expect(res.text).toBe(`id ${page.items[0]!.id}`);
    });
});
