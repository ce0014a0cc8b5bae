import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

const d = runBrowserTests ? describe : describe.skip;
// The page renders asynchronously; on a busy 2-core CI box a second is not always enough.
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

/** Payloads that would set window.__xss or open a dialog if any of them ever ran. */
const html = (tag: string): string => `<img src=x onerror="window.__xss='${tag}';alert('${tag}')"><script>window.__xss='${tag}-script'</script><svg onload="alert('${tag}-svg')">`;

/** Counts elements captured markup would have created, and reads the flag it would have set. */
const injected = (page: Page): Promise<{ elements: number; flag: unknown }> =>
    // A string: this project's type-check has no DOM library.
    page.evaluate<{ elements: number; flag: unknown }>(`({
        elements: document.querySelectorAll('#app img, #app script, #app svg, #app iframe, #app [onerror], #app [onload]').length,
        flag: window.__xss,
    })`);

d('dashboard safety: captured content never runs', () => {
    let svc: TestService;
    let browser: Browser;
    let w: WatchedPage;
    let evil: Server;
    let evilUrl: string;

    beforeAll(async () => {
        ensureDashboardBuilt();
        // A replay target whose answer is itself hostile markup.
        evil = createServer((req, res) => {
            req.resume();
            req.on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end(html('replay-answer')));
        });
        await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
        evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
        svc = await startTestService({ input: { rateLimitPerMinute: 0, enableJSONParsing: true }, env: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
        browser = await launchBrowser();
        w = await openPage(browser);
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
        evil?.close();
    });

    it('captures XSS payloads in the body, JSON keys and values, headers, query, path and user agent, opens each, and none runs', async () => {
        const base = svc.deps.baseUrl();
        const hook = `${base}/webhook/${svc.webhookId}`;
        const sends: [string, RequestInit][] = [
            ['/html-body', { method: 'POST', body: html('body'), headers: { 'content-type': 'text/html' } }],
            ['/json-body', { method: 'POST', body: JSON.stringify({ value: html('json-value'), [html('json-key')]: 1 }), headers: { 'content-type': 'application/json' } }],
            ['/header', { method: 'POST', body: 'x', headers: { 'x-evil': html('header'), [`x-${'a'.repeat(3)}`]: '"><script>alert(1)</script>' } }],
            [`/query?q=${encodeURIComponent(html('query'))}&${encodeURIComponent(html('query-key'))}=1`, { method: 'GET' }],
            ['/ua', { method: 'GET', headers: { 'user-agent': html('user-agent') } }],
            [`/${encodeURIComponent(html('path'))}`, { method: 'DELETE' }],
        ];
        for (const [path, init] of sends) {
            const res = await fetch(`${hook}${path}`, init);
            await res.arrayBuffer();
            expect(res.status, path).toBe(200);
        }
        const page = w.page;
        await page.goto(`${base}/`);
        await poll(() => page.locator('.row').count()).toBe(sends.length);
        const ids = await page.locator('.row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id') ?? ''));
        for (const id of ids) {
            await page.locator(`.row[data-id="${id}"]`).click();
            const detail = page.locator(`.detail[data-id="${id}"]`);
            await detail.waitFor();
            // Every view of the body: pretty, raw, hex.
            for (const mode of ['Pretty', 'Raw', 'Hex']) {
                const tab = detail.getByRole('tab', { name: mode });
                if (await tab.count()) await tab.click();
            }
            expect(await injected(page), id).toEqual({ elements: 0, flag: undefined });
        }
        // The markup is there, as text (rows are newest first: ids[1] is the user-agent capture).
        await page.locator(`.row[data-id="${ids[1]}"]`).click();
        await poll(() => page.locator('.facts').textContent()).toContain(html('user-agent'));
        // A hostile replay answer is shown as text too.
        await page.locator(`.row[data-id="${ids[5]}"]`).click();
        const detail = page.locator(`.detail[data-id="${ids[5]}"]`);
        await detail.waitFor();
        await detail.locator('input[name=target]').fill(evilUrl);
        await detail.getByRole('button', { name: 'Replay' }).click();
        await poll(() => detail.locator('[data-testid=replay-result]').textContent()).toContain("window.__xss='replay-answer'");
        // And two hostile captures side by side.
        await page.locator(`.row[data-id="${ids[0]}"] input[type=checkbox]`).check();
        await page.locator(`.row[data-id="${ids[5]}"] input[type=checkbox]`).check();
        await page.getByRole('button', { name: 'Diff marked (2/2)' }).click();
        await page.locator('.diff').waitFor();
        await page.waitForTimeout(200);
        expect(await injected(page)).toEqual({ elements: 0, flag: undefined });
        expect(w.dialogs).toEqual([]);
        expect(w.errors).toEqual([]);
    });
});

d('dashboard with authKey', () => {
    const KEY = 'k3y-secret';
    let svc: TestService;
    let browser: Browser;
    let w: WatchedPage;

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { authKey: KEY, rateLimitPerMinute: 0 } });
        browser = await launchBrowser();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
    });

    it('answers / with 401 JSON without the key, while the static files stay reachable', async () => {
        const res = await svc.fetch('/');
        expect(res.status).toBe(401);
        expect((await json(res)).error).toBe('Unauthorized');
        expect((await svc.fetch(`/?key=wrong`)).status).toBe(401);
        const page = await (await svc.fetch(`/?key=${KEY}`)).text();
        const script = /src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
        assert.ok(script);
        expect((await svc.fetch(script)).status).toBe(200);
    });

    it('works when opened as /?key=…: every call carries the key, the stream included, and curl reproduces the capture', async () => {
        const base = svc.deps.baseUrl();
        w = await openPage(browser, { origin: base });
        const page = w.page;
        const calls: { url: string; auth: string | undefined }[] = [];
        page.on('request', (req) => {
            if (req.resourceType() === 'fetch') calls.push({ url: req.url(), auth: req.headers().authorization });
        });
        await page.goto(`${base}/?key=${KEY}`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
        const res = await fetch(`${base}/webhook/${svc.webhookId}/with-key?key=${KEY}`, { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } });
        expect(res.status).toBe(200);
        const row = page.locator('.row', { hasText: '/with-key' });
        await row.waitFor();
        await row.click();
        await page.locator('.detail').waitFor();
        expect(calls.some((c) => c.url.endsWith('/log-stream'))).toBe(true);
        expect(calls.length).toBeGreaterThanOrEqual(3);
        for (const c of calls) expect(c.auth, c.url).toBe(`Bearer ${KEY}`);
        const har = await page.getByRole('link', { name: 'Download HAR' }).getAttribute('href');
        expect(har).toContain(`key=${KEY}`);
        // The stored URL has the key masked; the copied command puts the page's key back.
        await page.getByRole('button', { name: 'Copy as curl' }).click();
        await poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toContain('curl');
        const command = await page.evaluate<string>('navigator.clipboard.readText()');
        const run = await promisify(execFile)('bash', ['-c', `${command} -sS -o /dev/null -w '%{http_code}'`], { encoding: 'utf8', timeout: 10_000 });
        expect(run.stdout).toBe('200');
        expect(w.errors).toEqual([]);
    });
});
