import { afterAll, describe, expect, it } from 'vitest';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';

// Standby callers authenticate to Apify with `?token=` or `Authorization: Bearer <token>`; that
// credential reaches the container with the request and must neither be stored nor break a route.
describe('the Apify `token` of Standby callers', () => {
    const services: TestService[] = [];
    afterAll(async () => {
        for (const svc of services) await svc.close();
    });

    it('regression: the token query parameter was stored unmasked (now masked like key, with or without authKey)', async () => {
        for (const input of [{}, { authKey: 'k-123' }]) {
            const svc = await startTestService({ input: { ...input, rateLimitPerMinute: 0 } });
            services.push(svc);
            const auth = 'authKey' in input ? '&key=k-123' : '';
            const res = await svc.fetch(`/webhook/${svc.webhookId}?token=apify_api_SECRET${auth}&order=7`, { method: 'POST', body: 'x' });
            expect(res.status).toBe(200);
            const listed = await findEvent(svc, res.headers.get('x-request-id'), { headers: { authorization: 'Bearer k-123' } });
            const entry = await json<{ requestUrl: string; query: Record<string, string> }>(await svc.fetch(`/logs/${listed.id}`, { headers: { authorization: 'Bearer k-123' } }));
            expect(entry.query.token).toBe('[REDACTED]');
            expect(entry.query.order).toBe('7');
            expect(entry.requestUrl).not.toContain('SECRET');
            expect(entry.requestUrl).toContain('token=%5BREDACTED%5D');
            if (auth) expect(entry.query.key).toBe('[REDACTED]');
        }
    });

    it('regression: GET /logs?token=… answered 400 "not a GET /logs parameter"', async () => {
        const svc = await startTestService({ input: { rateLimitPerMinute: 0 } });
        services.push(svc);
        const res = await svc.fetch('/logs?token=apify_api_SECRET&limit=5');
        expect(res.status).toBe(200);
        const body = await json<{ filters: Record<string, unknown> }>(res);
        expect(body.filters).not.toHaveProperty('token');
    });

    it('accepts the authKey as ?key= while the Authorization header carries the caller’s Apify token', async () => {
        const svc = await startTestService({ input: { authKey: 'right-key', rateLimitPerMinute: 0 } });
        services.push(svc);
        const apifyToken = { authorization: 'Bearer apify_api_SOMETHING_ELSE' };
        expect((await svc.fetch('/info?key=right-key', { headers: apifyToken })).status).toBe(200);
        expect((await svc.fetch(`/webhook/${svc.webhookId}?key=right-key`, { method: 'POST', headers: apifyToken, body: 'x' })).status).toBe(200);
        expect((await svc.fetch('/info', { headers: apifyToken })).status).toBe(401);
        expect((await svc.fetch('/info?key=wrong', { headers: apifyToken })).status).toBe(401);
        expect((await svc.fetch('/info', { headers: { authorization: 'Bearer right-key' } })).status).toBe(200);
    });
});
