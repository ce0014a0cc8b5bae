import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

interface Received { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }

/** A real receiver on loopback that records what it gets and answers 201. */
async function startReceiver(): Promise<{ server: Server; url: string; got: Received[] }> {
    const got: Received[] = [];
    const server = createServer((req, res) => {
        const parts: Buffer[] = [];
        req.on('data', (c: Buffer) => parts.push(c));
        req.on('end', () => {
            got.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts) });
            res.writeHead(201, { 'content-type': 'text/plain' }).end('received by test receiver');
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

const d = runBrowserTests ? describe : describe.skip;
// The page renders asynchronously; on a busy 2-core CI box a second is not always enough.
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

d('dashboard in Chromium', () => {
    let svc: TestService;
    let base: string;
    let browser: Browser;
    let w: WatchedPage;
    let page: Page;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    /** Sends a capture and returns its log id. */
    const capture = async (path: string, init: RequestInit): Promise<string> => {
        const res = await fetch(`${base}/webhook/${svc.webhookId}${path}`, init);
        await res.arrayBuffer();
        const requestId = res.headers.get('x-request-id');
        const list = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs?limit=50'));
        const item = list.items.find((i) => i.requestId === requestId);
        assert.ok(item, 'capture not stored');
        return item.id;
    };
    const row = (id: string) => page.locator(`.row[data-id="${id}"]`);
    const openCapture = async (id: string): Promise<void> => {
        await row(id).click();
        await page.locator(`.detail[data-id="${id}"]`).waitFor();
    };
    // Page-side code goes as strings: this project's type-check has no DOM library.
    const clipboard = (): Promise<string> => page.evaluate<string>('navigator.clipboard.readText()');

    beforeAll(async () => {
        ensureDashboardBuilt();
        receiver = await startReceiver();
        svc = await startTestService({ input: { rateLimitPerMinute: 0, enableJSONParsing: true }, env: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
        base = svc.deps.baseUrl();
        browser = await launchBrowser();
        w = await openPage(browser, { origin: base });
        page = w.page;
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
        receiver?.server.close();
    });

    it('loads the page under a strict CSP, with the webhook URLs, their time left and copy buttons', async () => {
        const res = await page.goto(`${base}/`);
        const csp = res?.headers()['content-security-policy'] ?? '';
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("connect-src 'self'");
        expect(csp).not.toContain('unsafe-inline');
        expect(csp).not.toContain('unsafe-eval');
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
        const hooks = page.locator('.hook');
        await poll(() => hooks.count()).toBe(3);
        const first = `${base}/webhook/${svc.deps.webhooks.active()[0]!.id}`;
        await poll(() => page.locator('.hook-url').allTextContents()).toContain(first);
        expect(await hooks.first().textContent()).toMatch(/23h 5\dm left/);
        await hooks.filter({ hasText: first }).getByRole('button', { name: 'Copy URL' }).click();
        await poll(clipboard).toBe(first);
        // The favicon is our own.
        const icon = await fetch(`${base}/favicon.ico`);
        expect(icon.status).toBe(200);
        expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    });

    it('shows a new capture live at the top with method, status, path and query, size and time', async () => {
        const id = await capture('/orders?live=1', { method: 'PATCH', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
        const r = row(id);
        await r.waitFor();
        expect(await page.locator('.row').first().getAttribute('data-id')).toBe(id);
        const text = await r.textContent();
        expect(text).toContain('PATCH');
        expect(text).toContain('200');
        expect(text).toContain('/orders?live=1');
        expect(text).toContain('7 B');
        expect(await r.locator('.time').textContent()).toMatch(/\d\d:\d\d:\d\d/);
    });

    it('filters through /logs and opens the capture with its headers, query and body', async () => {
        const wanted = await capture('/f?k=v1', { method: 'PUT', body: JSON.stringify({ needle: 'found', n: 1 }), headers: { 'content-type': 'application/json', 'x-trace': 't-1' } });
        await capture('/f?k=v2', { method: 'PUT', body: JSON.stringify({ other: 1 }), headers: { 'content-type': 'application/json' } });
        await capture('/f?k=v3', { method: 'POST', body: JSON.stringify({ needle: 'post' }), headers: { 'content-type': 'application/json' } });
        await row(wanted).waitFor();
        await page.selectOption('select[name=method]', 'PUT');
        await page.fill('input[name=text]', 'NEEDLE');
        const query = page.waitForRequest((req) => req.url().includes('/logs?') && req.url().includes('method=PUT') && req.url().includes('body=NEEDLE'));
        await page.getByRole('button', { name: 'Apply' }).click();
        await query;
        await poll(() => page.locator('.row').count()).toBe(1);
        await openCapture(wanted);
        const detail = page.locator('.detail');
        expect(await detail.locator('.kv tr', { hasText: 'x-trace' }).textContent()).toContain('t-1');
        expect(await detail.locator('.kv tr', { hasText: /^k/ }).first().textContent()).toContain('v1');
        expect(await detail.locator('.j-key', { hasText: '"needle"' }).count()).toBe(1);
        expect(await detail.locator('.j-str', { hasText: '"found"' }).count()).toBe(1);
        // Timing and the signature result are shown too.
        expect(await detail.locator('.facts').textContent()).toContain('not checked');
        await page.getByRole('button', { name: 'Clear' }).click();
        await poll(() => page.locator('.row').count()).toBeGreaterThan(3);
    });

    it('moves with j/k and the arrows and opens with Enter', async () => {
        const ids = await page.locator('.row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
        await page.locator('.row').first().click();
        await page.locator('.top h1').click();
        await page.keyboard.press('j');
        await page.keyboard.press('j');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('k');
        await page.keyboard.press('Enter');
        await page.locator(`.detail[data-id="${ids[2]}"]`).waitFor();
        expect(await page.locator('.row.cursor').getAttribute('data-id')).toBe(ids[2]);
    });

    it('copies a curl command that sends the same bytes again', async () => {
        const bodies: [string, Buffer, string][] = [
            ['json', Buffer.from('{ "s" : "it\'s $HOME \\\\ 100% \\"q\\"",\n\t"u": "é✓" }'), 'application/json'],
            ['binary', Buffer.from([0x00, 0x01, 0x27, 0x25, 0x5c, 0xff, 0x0a, 0x40]), 'application/octet-stream'],
            ['at-sign', Buffer.from('@/etc/passwd'), 'text/plain'],
        ];
        for (const [name, bytes, type] of bodies) {
            const id = await capture(`/curl?case=${name}&x=a%20b`, { method: 'POST', body: bytes, headers: { 'content-type': type, 'x-case': `${name} 'quoted'` } });
            await openCapture(id);
            if (name === 'binary') expect(await page.locator('.hex').textContent()).toContain('00 01 27 25 5c ff 0a 40');
            await page.getByRole('button', { name: 'Copy as curl' }).click();
            await poll(clipboard).toMatch(/curl/);
            const command = await clipboard();
            // Async: the service answering curl runs in this very process.
            const run = await promisify(execFile)('bash', ['-c', `${command} -sS -o /dev/null -w '%{http_code}'`], { encoding: 'utf8', timeout: 10_000 });
            expect(run.stdout, run.stderr).toBe('200');
            const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs?limit=1'));
            const again = list.items[0]!.id;
            expect(again).not.toBe(id);
            const [first, second] = await Promise.all([svc.fetch(`/logs/${id}`).then((r) => json<Record<string, unknown>>(r)), svc.fetch(`/logs/${again}`).then((r) => json<Record<string, unknown>>(r))]);
            const payload = Buffer.from(await (await svc.fetch(`/logs/${again}/payload`)).arrayBuffer());
            expect(payload, name).toEqual(bytes);
            expect(second.method).toBe('POST');
            expect(second.query).toEqual(first.query);
            expect((second.headers as Record<string, string>)['x-case']).toBe(`${name} 'quoted'`);
            expect((second.headers as Record<string, string>)['content-type']).toBe(type);
            await row(again).waitFor();
        }
    });

    it('replays a capture with edits to a real receiver and shows the result and the history', async () => {
        const id = await capture('/replay-me', { method: 'POST', body: '{"v":1}', headers: { 'content-type': 'application/json', 'x-keep': 'kept' } });
        await openCapture(id);
        const detail = page.locator('.detail');
        await detail.locator('input[name=target]').fill(receiver.url);
        await detail.locator('select[name=method]').selectOption('PUT');
        await detail.locator('textarea[name=headers]').fill('X-Edited: yes');
        await detail.locator('input[name=editBody]').check();
        await detail.locator('textarea[name=body]').fill('{"v":2}');
        await detail.getByRole('button', { name: 'Replay' }).click();
        const result = page.locator('[data-testid=replay-result]');
        await result.waitFor();
        expect(await result.locator('.target-status').textContent()).toBe('201');
        expect(await result.textContent()).toContain('received by test receiver');
        const got = receiver.got.at(-1);
        assert.ok(got);
        expect(got.method).toBe('PUT');
        expect(got.headers['x-edited']).toBe('yes');
        expect(got.headers['x-keep']).toBe('kept');
        expect(got.headers['x-service-replay']).toBe('true');
        expect(got.body.toString()).toBe('{"v":2}');
        await poll(() => detail.locator('.history tbody tr').count()).toBe(1);
        expect(await detail.locator('.history tbody tr').textContent()).toContain('201');
        // A refused replay shows the service's error.
        await detail.locator('input[name=target]').fill('http://169.254.169.254/latest');
        await detail.getByRole('button', { name: 'Replay' }).click();
        await poll(() => result.textContent()).toMatch(/Replay failed \(400\)/);
    });

    it('diffs two captures side by side with the differences marked', async () => {
        const a = await capture('/diff?side=a', { method: 'POST', body: JSON.stringify({ same: 1, amount: 10 }, null, 2), headers: { 'content-type': 'application/json', 'x-only-a': '1' } });
        const b = await capture('/diff?side=b', { method: 'POST', body: JSON.stringify({ same: 1, amount: 99 }, null, 2), headers: { 'content-type': 'application/json' } });
        await row(b).waitFor();
        await row(a).locator('input[type=checkbox]').check();
        await row(b).locator('input[type=checkbox]').check();
        await page.getByRole('button', { name: 'Diff marked (2/2)' }).click();
        const diff = page.locator('.diff');
        await diff.waitFor();
        expect(await diff.locator('.diff-table tr.differs', { hasText: 'x-only-a' }).count()).toBe(1);
        expect(await diff.locator('.diff-table tr.differs th', { hasText: /^side$/ }).count()).toBe(1);
        expect(await diff.locator('.diff-table tr:not(.differs)', { hasText: 'content-type' }).count()).toBe(1);
        const changed = diff.locator('.diff-lines tr.d-changed');
        expect(await changed.count()).toBe(1);
        expect(await changed.locator('td.l').textContent()).toContain('"amount": 10');
        expect(await changed.locator('td.r').textContent()).toContain('"amount": 99');
        expect(await diff.locator('.diff-lines tr.d-same', { hasText: '"same": 1' }).count()).toBe(1);
        await page.keyboard.press('Escape');
        await diff.waitFor({ state: 'detached' });
    });

    it('downloads the HAR of the current filter', async () => {
        await page.selectOption('select[name=method]', 'PUT');
        await page.getByRole('button', { name: 'Apply' }).click();
        await poll(async () => (await page.locator('.row .method').allTextContents()).every((m) => m === 'PUT')).toBe(true);
        const listed = await page.locator('.row').count();
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download HAR' }).click()]);
        const har = JSON.parse(await readFile((await download.path())!, 'utf8')) as { log: { version: string; entries: { request: { method: string } }[] } };
        expect(har.log.version).toBe('1.2');
        expect(har.log.entries.length).toBe(listed);
        expect(har.log.entries.every((e) => e.request.method === 'PUT')).toBe(true);
        await page.getByRole('button', { name: 'Clear' }).click();
    });

    it('resumes the stream with Last-Event-ID after a drop and shows what it missed', async () => {
        const before = await capture('/before-drop', { method: 'POST', body: 'x' });
        await row(before).waitFor();
        let release!: () => void;
        const gate = new Promise<void>((r) => (release = r));
        const sent: string[] = [];
        await page.route('**/log-stream', async (route) => {
            sent.push(route.request().headers()['last-event-id'] ?? '');
            await gate;
            await route.continue();
        });
        svc.server.closeAllConnections();
        await poll(() => sent.length).toBeGreaterThan(0);
        // Captured while the page is cut off.
        const missed = await capture('/while-dropped', { method: 'POST', body: 'y' });
        release();
        await row(missed).waitFor();
        expect(sent[0]).toBe(before);
        await page.unroute('**/log-stream');
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
    });

    it('is readable in a narrow window and follows the system dark mode', async () => {
        const narrow = await openPage(browser, { width: 390, height: 800, colorScheme: 'dark' });
        try {
            await narrow.page.goto(`${base}/`);
            await narrow.page.locator('.row').first().waitFor();
            const bg = await narrow.page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
            const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number);
            expect((r ?? 255) + (g ?? 255) + (b ?? 255)).toBeLessThan(150);
            expect(await narrow.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
            await narrow.page.locator('.row').first().click();
            await narrow.page.locator('.detail').waitFor();
            expect(await narrow.page.locator('.list-pane').isVisible()).toBe(false);
            await narrow.page.getByRole('button', { name: 'Close detail' }).click();
            await narrow.page.locator('.list-pane').waitFor({ state: 'visible' });
            expect(narrow.errors).toEqual([]);
        } finally {
            await narrow.context.close();
        }
    });

    it('ran without a script error or CSP violation', () => {
        expect(w.errors).toEqual([]);
        expect(w.dialogs).toEqual([]);
    });
});
