import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, sendJson, type ErrorView } from '../manage/helpers.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests } from './browser.js';

const d = runBrowserTests ? describe : describe.skip;
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

/** The worker script of the attack: once registered it would see every request under its scope. */
const WORKER = "self.addEventListener('fetch', () => {});";

/**
 * The page of the attack (Major 1 of issue 33): it writes the title, reads the management API, pings a
 * third URL, and registers the worker for the whole origin, saying so with a second ping.
 */
const attackPage = (workerPath: string, pingPath: string): string => `<!doctype html><html><head><title>before</title></head><body><script>
document.title = 'script ran';
fetch('/logs');
fetch('${pingPath}?from=script', { method: 'POST', body: 'x' });
const sw = navigator.serviceWorker;
sw.register('${workerPath}', { scope: '/' }).catch(() => sw.register('${workerPath}'))
  .then(() => fetch('${pingPath}?from=registered', { method: 'POST', body: 'x' }));
</script></body></html>`;

/** How many service workers the page's origin has registered (a string: the type-check has no DOM library). */
const registrations = (page: Page): Promise<number> => page.evaluate<number>('navigator.serviceWorker.getRegistrations().then((r) => r.length)');

d('answers on /webhook/* are inert in a browser', () => {
    let svc: TestService;
    let browser: Browser;
    let plain: Server;
    const plainHits: string[] = [];

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        browser = await launchBrowser();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
        plain?.close();
    });

    it('a webhook answering HTML with a script that registers a service worker, reads /logs and writes the title runs none of it; the same page served without our headers does all three', async () => {
        const base = svc.deps.baseUrl();
        // The worker's own answer may not widen a worker's scope: refused, with the header named.
        const widened = await sendJson(svc, 'POST', '/webhooks', { response: { headers: { 'Content-Type': 'text/javascript', 'Service-Worker-Allowed': '/' }, body: WORKER } });
        expect(widened.status).toBe(400);
        expect((await json<ErrorView>(widened)).details?.[0]?.path).toBe('response.headers.Service-Worker-Allowed');
        const worker = await createWebhook(svc, { response: { headers: { 'Content-Type': 'text/javascript' }, body: WORKER } });
        const ping = await createWebhook(svc);
        const html = attackPage(`/webhook/${worker.id}`, `/webhook/${ping.id}`);
        const page = await createWebhook(svc, { response: { headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: html } });

        // The control: the same bytes from a server of our own, without the inert headers, do everything.
        plain = createServer((req, res) => {
            // The browser asks for a favicon on its own; only what the page asked for counts.
            if (req.url !== '/favicon.ico') plainHits.push(req.url ?? '');
            req.resume();
            if (req.url === '/page') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
            else if (req.url === `/webhook/${worker.id}`) res.writeHead(200, { 'Content-Type': 'text/javascript', 'Service-Worker-Allowed': '/' }).end(WORKER);
            else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
        });
        await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
        const control = await openPage(browser);
        await control.page.goto(`http://127.0.0.1:${(plain.address() as AddressInfo).port}/page`);
        await poll(() => control.page.title()).toBe('script ran');
        await poll(() => plainHits.slice().sort()).toEqual(
            [`/logs`, `/page`, `/webhook/${ping.id}?from=registered`, `/webhook/${ping.id}?from=script`, `/webhook/${worker.id}`].sort(),
        );
        expect(await registrations(control.page)).toBe(1);
        await control.context.close();

        // The attack, on the dashboard's origin.
        const w = await openPage(browser);
        const requested: string[] = [];
        w.page.on('request', (req) => requested.push(new URL(req.url()).pathname + new URL(req.url()).search));
        const answer = await w.page.goto(`${base}/webhook/${page.id}`);
        expect(answer?.status()).toBe(200);
        // Time for anything the script might have started (the control needed far less).
        await w.page.waitForTimeout(1500);
        expect(await w.page.title()).toBe('before');
        expect(requested).toEqual([`/webhook/${page.id}`]);
        const pings = await json<{ items: unknown[] }>(await svc.fetch(`/logs?webhookId=${ping.id}`));
        expect(pings.items).toEqual([]);
        const workerFetches = await json<{ items: unknown[] }>(await svc.fetch(`/logs?webhookId=${worker.id}`));
        expect(workerFetches.items).toEqual([]);
        // No worker on the dashboard's origin, asked from the dashboard itself.
        await w.page.goto(`${base}/`);
        expect(await registrations(w.page)).toBe(0);
        await w.context.close();
        // Checked last, so that a missing header shows first in what the page did.
        expect(answer?.headers()['content-security-policy']).toBe("default-src 'none'; sandbox");
    });
});
