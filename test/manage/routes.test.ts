import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, hit, listedIds, patchWebhook, sendJson, type ErrorView, type WebhookView } from './helpers.js';

const HOUR = 3_600_000;

describe('GET/POST /webhooks and GET/PATCH/DELETE /webhooks/:id', () => {
    let svc: TestService;
    const clock = new ManualClock();
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 2, retentionHours: 24 }, clock });
    });
    afterAll(() => svc.close());

    it('POST creates a webhook with the documented shape, a working URL and the run retention by default', async () => {
        const created = await createWebhook(svc, { name: 'stripe test' });
        expect(Object.keys(created).sort()).toEqual(['count', 'createdAt', 'expiresAt', 'id', 'name', 'response', 'url']);
        expect(created.id).toMatch(/^wh_[A-Za-z0-9]{21}$/);
        expect(created.url).toBe(`${svc.deps.baseUrl()}/webhook/${created.id}`);
        expect(created).toMatchObject({ name: 'stripe test', response: null, count: 0 });
        expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBe(24 * HOUR);
        expect((await hit(svc, created.id)).status).toBe(200);
        const fetched = await json<WebhookView>(await svc.fetch(`/webhooks/${created.id}`));
        expect(fetched.count).toBe(1);
    });

    it('GET /webhooks lists the active ones, oldest first, the generated ones included', async () => {
        clock.advance(1000);
        const later = await createWebhook(svc, { retentionHours: 1 });
        const list = await json<{ items: WebhookView[] }>(await svc.fetch('/webhooks'));
        expect(list.items.length).toBe(4);
        expect(list.items.at(-1)!.id).toBe(later.id);
        const created = list.items.map((w) => Date.parse(w.createdAt));
        expect([...created].sort((a, b) => a - b)).toEqual(created);
        expect(Date.parse(later.expiresAt) - Date.parse(later.createdAt)).toBe(HOUR);
    });

    it('PATCH changes the name, replaces the response whole, clears it with null and moves the expiry from now', async () => {
        const hook = await createWebhook(svc, { response: { statusCode: 201, body: 'made' } });
        let patched = await patchWebhook(svc, hook.id, { name: 'renamed' });
        expect(patched).toMatchObject({ name: 'renamed', response: { statusCode: 201, body: 'made' } });
        patched = await patchWebhook(svc, hook.id, { response: { delayMs: 0 } });
        expect(patched.response).toEqual({ delayMs: 0 });
        expect((await hit(svc, hook.id)).status).toBe(200);
        patched = await patchWebhook(svc, hook.id, { response: null, retentionHours: 168 });
        expect(patched.response).toBeNull();
        expect(Date.parse(patched.expiresAt)).toBe(clock.now() + 168 * HOUR);
        patched = await patchWebhook(svc, hook.id, { name: null });
        expect(patched.name).toBeNull();
    });

    it('DELETE answers 204; the webhook is gone from every route and ingest on it answers 404', async () => {
        const hook = await createWebhook(svc);
        await hit(svc, hook.id, 'to be deleted');
        const del = await svc.fetch(`/webhooks/${hook.id}`, { method: 'DELETE' });
        expect(del.status).toBe(204);
        expect(await del.text()).toBe('');
        expect((await svc.fetch(`/webhooks/${hook.id}`)).status).toBe(404);
        expect((await hit(svc, hook.id)).status).toBe(404);
        const list = await json<{ items: WebhookView[] }>(await svc.fetch('/webhooks'));
        expect(list.items.map((w) => w.id)).not.toContain(hook.id);
        expect(await listedIds(svc, `&webhookId=${hook.id}`)).toEqual([]);
        expect((await svc.fetch(`/webhooks/${hook.id}`, { method: 'DELETE' })).status).toBe(404);
    });

    it('answers 404 JSON for an unknown or expired webhook on GET, PATCH and DELETE', async () => {
        const shortLived = await createWebhook(svc, { retentionHours: 1 });
        clock.advance(HOUR + 1);
        for (const id of ['wh_doesNotExist000000000', shortLived.id]) {
            for (const [method, body] of [['GET', undefined], ['PATCH', '{"name":"x"}'], ['DELETE', undefined]] as const) {
                const res = await svc.fetch(`/webhooks/${id}`, { method, ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}) });
                expect(res.status, `${method} ${id}`).toBe(404);
                expect((await json<ErrorView>(res)).error).toBe('Not Found');
            }
        }
    });

    it('answers 405 with Allow for a method the route does not take', async () => {
        const res = await svc.fetch('/webhooks', { method: 'PUT' });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toContain('POST');
    });
});

describe('webhook body validation: 400 with details', () => {
    let svc: TestService;
    let id: string;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1 } });
        id = svc.webhookId;
    });
    afterAll(() => svc.close());

    const cases: [string, unknown, string][] = [
        ['an unknown top-level field', { nmae: 'typo' }, 'nmae'],
        ['an unknown response field', { response: { status: 500 } }, 'response.status'],
        ['an unknown field in a sequence step', { response: { sequence: [{ statusCode: 500, retry: true }] } }, 'response.sequence.0.retry'],
        ['a status below 200', { response: { statusCode: 199 } }, 'response.statusCode'],
        ['a status above 599', { response: { statusCode: 600 } }, 'response.statusCode'],
        ['a status that is not an integer', { response: { statusCode: '500' } }, 'response.statusCode'],
        ['a delay above 10000', { response: { delayMs: 10_001 } }, 'response.delayMs'],
        ['a negative delay', { response: { delayMs: -1 } }, 'response.delayMs'],
        ['a sequence of 101 answers', { response: { sequence: Array.from({ length: 101 }, () => ({ statusCode: 200 })) } }, 'response.sequence'],
        ['an empty sequence', { response: { sequence: [] } }, 'response.sequence'],
        ['a failureRate above 1', { response: { failureRate: 1.5 } }, 'response.failureRate'],
        ['a negative failureRate', { response: { failureRate: -0.1 } }, 'response.failureRate'],
        ['a failureStatusCode out of range', { response: { failureStatusCode: 700 } }, 'response.failureStatusCode'],
        ['a negative retryAfterSeconds', { response: { retryAfterSeconds: -5 } }, 'response.retryAfterSeconds'],
        ['a header name that is not a token', { response: { headers: { 'bad name': 'x' } } }, 'response.headers'],
        ['a header value with a line break', { response: { headers: { 'X-A': 'a\r\nSet-Cookie: x' } } }, 'response.headers.X-A'],
        ['a header value that is not a string', { response: { headers: { 'X-A': 1 } } }, 'response.headers.X-A'],
        ['a body that is a number', { response: { body: 42 } }, 'response.body'],
        ['a response that is an array', { response: [] }, 'response'],
        ['retentionHours 0', { retentionHours: 0 }, 'retentionHours'],
        ['retentionHours 169', { retentionHours: 169 }, 'retentionHours'],
        ['retentionHours that is not an integer', { retentionHours: 1.5 }, 'retentionHours'],
        ['a name that is not a string', { name: 5 }, 'name'],
        ['a name over 200 characters', { name: 'n'.repeat(201) }, 'name'],
        ['a body that is an array', [], '(body)'],
    ];

    for (const [what, body, path] of cases) {
        it(`POST and PATCH refuse ${what}`, async () => {
            for (const [method, url] of [['POST', '/webhooks'], ['PATCH', `/webhooks/${id}`]]) {
                const res = await sendJson(svc, method!, url!, body);
                expect(res.status, `${method} ${what}`).toBe(400);
                const error = await json<ErrorView>(res);
                expect(error.details?.map((d) => d.path), `${method} ${what}`).toContain(path);
            }
        });
    }

    it('refuses a body that is not JSON, and an empty PATCH', async () => {
        for (const [method, url] of [['POST', '/webhooks'], ['PATCH', `/webhooks/${id}`]]) {
            const res = await sendJson(svc, method!, url!, '{"name": ');
            expect(res.status).toBe(400);
            expect((await json<ErrorView>(res)).details).toEqual([{ path: '(body)', message: 'is not valid JSON' }]);
        }
        const empty = await sendJson(svc, 'PATCH', `/webhooks/${id}`, {});
        expect(empty.status).toBe(400);
        expect((await json<ErrorView>(empty)).details?.length).toBeGreaterThan(0);
    });

    it('lists every problem of a body at once, and changes nothing', async () => {
        const res = await sendJson(svc, 'PATCH', `/webhooks/${id}`, { name: 'kept?', bogus: 1, response: { statusCode: 1 } });
        const paths = (await json<ErrorView>(res)).details!.map((d) => d.path);
        expect(paths).toEqual(expect.arrayContaining(['bogus', 'response.statusCode']));
        const after = await json<WebhookView>(await svc.fetch(`/webhooks/${id}`));
        expect(after.name).toBeNull();
    });

    it('accepts every documented response field together', async () => {
        const response = {
            statusCode: 202, body: { ok: true }, headers: { 'X-Kind': 'test' }, delayMs: 0,
            sequence: [{ statusCode: 500 }, { statusCode: 200, body: 'fine', headers: { 'X-Step': '2' }, delayMs: 0 }],
            failureRate: 0, failureStatusCode: 429, retryAfterSeconds: 7,
        };
        const created = await createWebhook(svc, { name: 'all', retentionHours: 2, response });
        expect(created.response).toEqual(response);
    });
});

describe('authKey protects the management routes', () => {
    let svc: TestService;
    const key = 'manage-secret';
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, authKey: key } });
    });
    afterAll(() => svc.close());

    it('answers 401 without the key on every new route, and works with it', async () => {
        const id = svc.webhookId;
        const routes: [string, string, string?][] = [
            ['GET', '/webhooks'], ['POST', '/webhooks', '{}'], ['GET', `/webhooks/${id}`], ['PATCH', `/webhooks/${id}`, '{"name":"x"}'],
            ['DELETE', `/webhooks/${id}`], ['DELETE', '/logs/someLogId'], ['DELETE', `/logs?webhookId=${id}`],
        ];
        for (const [method, path, body] of routes) {
            const res = await svc.fetch(path, { method, ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}) });
            expect(res.status, `${method} ${path}`).toBe(401);
            expect((await json<ErrorView>(res)).message).toBe('Missing or invalid authentication key');
        }
        const auth = { authorization: `Bearer ${key}` };
        const created = await createWebhook(svc, { name: 'with key' }, auth);
        expect((await svc.fetch(`/webhooks/${created.id}?key=${key}`)).status).toBe(200);
        expect((await svc.fetch(`/logs?webhookId=${created.id}`, { method: 'DELETE', headers: auth })).status).toBe(200);
        expect((await svc.fetch(`/webhooks/${created.id}`, { method: 'DELETE', headers: auth })).status).toBe(204);
    });
});

describe('DELETE /logs/:logId and DELETE /logs?<filters>', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 2 } });
    });
    afterAll(() => svc.close());

    it('deletes one capture (204), then answers 404 for it', async () => {
        await hit(svc, svc.webhookId, 'one');
        const [logId] = await listedIds(svc);
        const del = await svc.fetch(`/logs/${logId}`, { method: 'DELETE' });
        expect(del.status).toBe(204);
        expect(await listedIds(svc)).not.toContain(logId);
        expect((await svc.fetch(`/logs/${logId}`, { method: 'DELETE' })).status).toBe(404);
        expect((await svc.fetch('/logs/unknownLogId', { method: 'DELETE' })).status).toBe(404);
    });

    it('deletes what matches the filters and answers {deleted: n}; the rest stays', async () => {
        const [a, b] = svc.deps.webhooks.active().map((w) => w.id);
        for (let i = 0; i < 5; i++) await hit(svc, a!, `a${i}`);
        for (let i = 0; i < 3; i++) await hit(svc, b!, `b${i}`);
        await hit(svc, a!, 'teapot', '?__status=418');
        const byStatus = await svc.fetch(`/logs?webhookId=${a}&statusCode=418`, { method: 'DELETE' });
        expect(await json(byStatus)).toEqual({ deleted: 1 });
        const res = await svc.fetch(`/logs?webhookId=${a}`, { method: 'DELETE' });
        expect(res.status).toBe(200);
        expect(await json(res)).toEqual({ deleted: 5 });
        expect(await listedIds(svc, `&webhookId=${a}`)).toEqual([]);
        expect((await listedIds(svc, `&webhookId=${b}`)).length).toBe(3);
        // The list's total follows the deletion (its counts are cached per filter).
        const page = await json<{ total: number }>(await svc.fetch(`/logs?webhookId=${b}&limit=1`));
        expect(page.total).toBe(3);
        const view = await json<WebhookView>(await svc.fetch(`/webhooks/${a}`));
        expect(view.count).toBe(0);
    });

    it('refuses DELETE /logs without a filter (400), and a bad filter as GET /logs does', async () => {
        for (const query of ['', '?limit=5', '?sort=-timestamp', '?webhookId=']) {
            const res = await svc.fetch(`/logs${query}`, { method: 'DELETE' });
            expect(res.status, query).toBe(400);
        }
        const bad = await svc.fetch('/logs?nosuchfilter=1', { method: 'DELETE' });
        expect(bad.status).toBe(400);
        expect((await json<ErrorView>(bad)).message).toContain('nosuchfilter');
        assert.ok((await listedIds(svc)).length > 0, 'nothing was deleted');
    });
});
