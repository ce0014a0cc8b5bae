import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createManagementApp } from '../../src/app.js';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';

const KEY = 'routing-edges-key';

interface RouteInfo {
    path: string;
    methods: string[];
}

/** Every route path the management app registers (arrays expanded), with its methods, read from the app itself. */
function registeredRoutes(svc: TestService): RouteInfo[] {
    type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; handle: { stack?: Layer[] } };
    const app = createManagementApp(svc.deps) as unknown as { router: { stack: Layer[] } };
    const out: RouteInfo[] = [];
    const walk = (stack: Layer[]): void => {
        for (const layer of stack) {
            if (layer.route) {
                const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all').map((m) => m.toUpperCase());
                for (const path of [layer.route.path].flat()) out.push({ path, methods });
            } else if (layer.handle.stack) walk(layer.handle.stack);
        }
    };
    walk(app.router.stack);
    return out;
}

/** A concrete path for a route pattern (`:param` filled in with letters whose case can change). */
const concrete = (pattern: string): string => pattern.replace(/:[A-Za-z]+/g, 'abc');
/** A method the route does not register, so asking with it has no side effect. */
const unregistered = (route: RouteInfo): string => ['PUT', 'PATCH', 'POST', 'DELETE', 'GET'].find((m) => !route.methods.includes(m))!;

describe('routing: one spelling per route, and the key before 405', () => {
    let svc: TestService;
    let routes: RouteInfo[];
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: KEY, rateLimitPerMinute: 0 } });
        routes = registeredRoutes(svc);
    });
    afterAll(() => svc.close());
    const withKey = { authorization: `Bearer ${KEY}` };

    it('finds the routes it checks (the walk is not empty)', () => {
        const paths = routes.map((r) => r.path);
        for (const p of ['/logs', '/logs/:logId', '/info', '/health', '/replay/:webhookId/:itemId']) assert.ok(paths.includes(p), `${p} is registered`);
    });

    it('answers every route spelled in another letter case with 404, not the route (/LOGS, /Info, …)', async () => {
        for (const route of routes.filter((r) => /[a-z]/.test(r.path))) {
            const method = unregistered(route);
            const path = concrete(route.path);
            // The exact spelling reaches the route: with the key, an unregistered method is its 405.
            assert.equal((await svc.fetch(path, { method, headers: withKey })).status, 405, `${method} ${path}`);
            for (const variant of [path.toUpperCase(), path.replace(/[a-z]/, (c) => c.toUpperCase())]) {
                const res = await svc.fetch(variant, { method, headers: withKey });
                assert.equal(res.status, 404, `${method} ${variant}`);
                assert.match((await json<{ message: string }>(res)).message, /^No route for /);
            }
        }
    });

    it('answers every route with a trailing slash added with 404 (/logs/ is not /logs)', async () => {
        for (const route of routes.filter((r) => r.path !== '/')) {
            const method = unregistered(route);
            const res = await svc.fetch(`${concrete(route.path)}/`, { method, headers: withKey });
            assert.equal(res.status, 404, `${method} ${route.path}/`);
            assert.match((await json<{ message: string }>(res)).message, /^No route for /);
        }
        assert.equal((await svc.fetch('/logs/?limit=1', { headers: withKey })).status, 404);
        assert.equal((await svc.fetch('/logs?limit=1', { headers: withKey })).status, 200);
    });

    it('checks the key before 405 on every protected route: a stranger gets 401, the key holder 405', async () => {
        const protectedPaths: string[] = [];
        for (const route of routes) {
            const path = concrete(route.path);
            // Without the key, a protected route refuses its own method before doing anything.
            const own = route.methods.includes('GET') ? 'GET' : route.methods[0]!;
            const ownStatus = (await svc.fetch(path, { method: own, headers: { 'x-probe': '1' } })).status;
            const method = unregistered(route);
            const stranger = await svc.fetch(path, { method });
            if (ownStatus === 401) {
                protectedPaths.push(route.path);
                assert.equal(stranger.status, 401, `${method} ${path} without the key`);
                assert.equal(stranger.headers.get('www-authenticate'), 'Bearer');
                assert.equal(stranger.headers.get('allow'), null, 'a stranger learns no methods');
                assert.equal((await json<{ status: number }>(stranger)).status, 401);
                assert.equal((await svc.fetch(`${path}?key=wrong`, { method })).status, 401, `${method} ${path} with a wrong key`);
                const holder = await svc.fetch(`${path}?key=${KEY}`, { method });
                assert.equal(holder.status, 405, `${method} ${path} with the key`);
                assert.equal(holder.headers.get('allow'), route.methods.join(', '));
            } else {
                // A public route (probes, assets) says 405 to anyone: it hides nothing.
                assert.equal(stranger.status, 405, `${method} ${path} on a public route`);
            }
        }
        for (const p of ['/logs', '/logs/:logId', '/logs/:logId/payload', '/info', '/system/metrics', '/replay/:webhookId/:itemId', '/log-stream', '/']) {
            assert.ok(protectedPaths.includes(p), `${p} is protected`);
        }
    });

    it('captures only under /webhook/ in its exact case; sub-paths and a trailing slash are captures', async () => {
        const before = (await json<{ total: number }>(await svc.fetch('/logs?limit=1', { headers: withKey }))).total;
        for (const variant of [`/Webhook/${svc.webhookId}`, `/WEBHOOK/${svc.webhookId}`, `/webhooK/${svc.webhookId}`]) {
            const res = await svc.fetch(`${variant}?key=${KEY}`, { method: 'POST', body: 'x' });
            assert.equal(res.status, 404, variant);
            assert.match((await json<{ message: string }>(res)).message, /^No route for /);
        }
        for (const path of [`/webhook/${svc.webhookId}/`, `/webhook/${svc.webhookId}/Sub/Path`]) {
            const res = await svc.fetch(`${path}?key=${KEY}`, { method: 'POST', body: 'x' });
            assert.equal(res.status, 200, path);
            await findEvent(svc, res.headers.get('x-request-id'), { headers: withKey });
        }
        const after = (await json<{ total: number }>(await svc.fetch('/logs?limit=1', { headers: withKey }))).total;
        assert.equal(after, before + 2, 'only the two real captures were stored');
    });
});
