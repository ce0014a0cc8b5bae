import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { sendJson, type ErrorView } from '../manage/helpers.js';

// A rule's `when`, a template and the rate limit are checked when a webhook is created or changed:
// 400 with `details`, each naming the path (and a template's position).

describe('rules, templates and the rate limit are validated on save', () => {
    let svc: TestService;
    beforeAll(async () => {
        // 128 MB: the answers' budget is 8 MB.
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 }, env: { ACTOR_MEMORY_MBYTES: '128' } });
    });
    afterAll(() => svc.close());

    /** POSTs a webhook with `response`; the answer's status and body. */
    async function save(response: unknown): Promise<{ status: number; body: ErrorView }> {
        const res = await sendJson(svc, 'POST', '/webhooks', { response });
        return { status: res.status, body: await json<ErrorView>(res) };
    }

    const rule = (when: Record<string, unknown>, answer: Record<string, unknown> = {}): Record<string, unknown> => ({ when, answer });

    it('refuses unknown when keys, answer-side filters, a bad CIDR and a bad number, each at its path', async () => {
        const { status, body } = await save({
            rules: [rule({ method: 'POST', statusCode: 200 }), rule({ remoteIp: '10.0.0.0/33', 'size[gte]': 'big', responseBody: 'x' }), rule({ 'size[between]': 1, 'body[a..b]': 'x', key: 'k' })],
        });
        expect(status).toBe(400);
        expect(body.details).toEqual([
            { path: 'response.rules.0.when.statusCode', message: expect.stringContaining('is not a rule condition parameter') },
            { path: 'response.rules.1.when.remoteIp', message: expect.stringContaining('IP address or a CIDR') },
            { path: 'response.rules.1.when.size[gte]', message: expect.stringContaining('must be a number') },
            { path: 'response.rules.1.when.responseBody', message: expect.stringContaining('is not a rule condition parameter') },
            { path: 'response.rules.2.when.size[between]', message: expect.stringContaining('unknown operator') },
            { path: 'response.rules.2.when.body[a..b]', message: expect.stringContaining('empty key') },
            { path: 'response.rules.2.when.key', message: expect.stringContaining('is not a rule condition parameter') },
        ]);
    });

    it('refuses a bad template with its path and position, in a rule, a header, the fixed answer and a sequence step', async () => {
        const { status, body } = await save({
            body: 'ok {{request.nope}}',
            sequence: [{ body: '{{#request.body}}x{{/request.body}}' }],
            rules: [rule({}, { body: 'line 1\n  {{request.method', headers: { 'X-Echo': '{{> partial}}' } })],
        });
        expect(status).toBe(400);
        expect(body.details).toEqual([
            { path: 'response.body', message: expect.stringMatching(/not a placeholder.*at character 3, line 1, column 4/) },
            { path: 'response.sequence.0.body', message: expect.stringMatching(/section.*at character 0/) },
            { path: 'response.rules.0.answer.body', message: expect.stringMatching(/Unclosed tag.*line 2/) },
            { path: 'response.rules.0.answer.headers.X-Echo', message: expect.stringContaining('partial') },
        ]);
    });

    it('refuses more than 50 rules and a template over 64 KB', async () => {
        const many = await save({ rules: Array.from({ length: 51 }, () => rule({})) });
        expect(many.status).toBe(400);
        expect(many.body.details?.[0]?.path).toBe('response.rules');
        const big = await save({ rules: [rule({}, { body: `${'x'.repeat(65_536)}{{uuid}}` })] });
        expect(big.status).toBe(400);
        expect(big.body.details).toEqual([{ path: 'response.rules.0.answer.body', message: expect.stringContaining('at most 65536') }]);
        // Exactly 50 rules, and a 64 KB template, are fine.
        expect((await save({ rules: Array.from({ length: 50 }, () => rule({}, { body: `${'x'.repeat(65_000)}{{uuid}}` })) })).status).toBe(201);
    });

    it("refuses a rule answer's framing header, an unknown rule field and a bad rate limit", async () => {
        const { status, body } = await save({ rules: [{ when: {}, answer: { headers: { 'Content-Length': '1' } } }] });
        expect(status).toBe(400);
        expect(body.details).toEqual([{ path: 'response.rules.0.answer.headers.Content-Length', message: expect.stringContaining('framing') }]);
        const unknown = await save({ rules: [{ when: {}, answer: {}, then: 1 }] });
        expect(unknown.body.details).toEqual([{ path: 'response.rules.0.then', message: 'is not a known field' }]);
        const missing = await save({ rules: [{ answer: {} }] });
        expect(missing.status).toBe(400);
        const rate = await save({ rateLimit: { requests: 0, perSeconds: 60 } });
        expect(rate.body.details?.[0]?.path).toBe('response.rateLimit.requests');
    });

    it("counts rules in the answers' memory budget (the whole response JSON)", async () => {
        const bodyOf = (i: number): string => `${i}`.padEnd(200_000, 'x');
        const res = await save({ rules: Array.from({ length: 50 }, (_, i) => rule({}, { body: bodyOf(i) })) });
        expect(res.status).toBe(413);
    });
});
