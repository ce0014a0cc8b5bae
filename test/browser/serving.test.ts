import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/http.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt } from './browser.js';

// How GET / and its files are served; no browser needed.
describe('dashboard serving', () => {
    let svc: TestService;
    let page: string;
    let script: string;

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { rateLimitPerMinute: 5 } });
        page = await (await svc.fetch('/')).text();
        script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? '';
    });
    afterAll(() => svc.close());

    it('serves the built page with a strict CSP and no inline script', async () => {
        const res = await svc.fetch('/');
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp).toMatch(/default-src 'none'/);
        expect(csp).toMatch(/script-src 'self'(;|$)/);
        expect(csp).toMatch(/connect-src 'self'(;|$)/);
        expect(csp).toMatch(/frame-ancestors 'none'/);
        expect(csp).not.toMatch(/unsafe/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(script).not.toBe('');
        // Every <script> has a src: nothing inline.
        expect(page.match(/<script\b[^>]*>/g)?.every((tag) => /\bsrc="\/assets\//.test(tag))).toBe(true);
    });

    it('serves the hashed assets gzipped when asked, immutable, and never counts them against the rate limit', async () => {
        for (let i = 0; i < 8; i++) expect((await svc.fetch(script)).status).toBe(200);
        const raw = await rawRequest(`${svc.url}${script}`, { method: 'GET', headers: { 'accept-encoding': 'gzip' } });
        expect(raw.status).toBe(200);
        expect(raw.headers['content-encoding']).toBe('gzip');
        expect(raw.headers['content-type']).toBe('text/javascript; charset=utf-8');
        expect(raw.headers['cache-control']).toContain('immutable');
        const plain = Buffer.from(await (await svc.fetch(script, { headers: { 'accept-encoding': 'identity' } })).arrayBuffer());
        expect(gunzipSync(raw.body)).toEqual(plain);
        expect((await svc.fetch('/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
    });

    it('answers unknown or crafted asset names with 404 JSON, other methods with 405', async () => {
        for (const path of ['/assets/nope.js', '/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e%2findex.html']) {
            const res = await svc.fetch(path);
            expect(res.status, path).toBe(404);
            expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        }
        const post = await svc.fetch('/', { method: 'POST' });
        expect(post.status).toBe(405);
        expect(post.headers.get('allow')).toContain('GET');
        const head = await svc.fetch('/', { method: 'HEAD' });
        expect(head.status).toBe(200);
    });
});
