import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { multipart } from '../forms/bodies.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

// The dashboard's Form view in Chromium: a form capture shows its fields (as text, never markup) and
// its files with name, size and type, and each file's Download link saves its exact bytes under its name.

const d = runBrowserTests ? describe : describe.skip;
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

d('the Form view in Chromium', () => {
    let svc: TestService;
    let browser: Browser;
    let w: WatchedPage;
    let page: Page;

    const capture = async (body: Buffer, contentType: string): Promise<string> => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
        await res.arrayBuffer();
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.headers.get('x-request-id')}`));
        return page.items[0]!.id;
    };
    const open = async (id: string): Promise<void> => {
        await page.locator(`.row[data-id="${id}"]`).click();
        await page.locator(`.detail[data-id="${id}"]`).waitFor();
    };

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        browser = await launchBrowser();
        w = await openPage(browser, { origin: svc.deps.baseUrl() });
        page = w.page;
        await page.goto(`${svc.deps.baseUrl()}/`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
    });

    it('shows the fields and files of a multipart capture, and downloads a file byte-exact under its name', async () => {
        const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0d, 0x0a]);
        const sent = multipart([
            { name: 'subject', value: 'Invoice 42' },
            { name: 'html', value: '<img src=x onerror=alert(1)>' },
            { name: 'attachment-1', filename: 'facture été.pdf', type: 'application/pdf', value: pdf },
        ]);
        const id = await capture(sent.body, sent.contentType);
        await open(id);
        const form = page.locator('.form-view');
        await form.waitFor();
        const fields = form.locator('.form-fields tr');
        await poll(() => fields.allTextContents()).toEqual(['subjectInvoice 42', 'html<img src=x onerror=alert(1)>']);
        const file = form.locator('.form-files tbody tr');
        await poll(() => file.locator('td').allTextContents()).toEqual(['attachment-1', 'facture été.pdf', '8 B', 'application/pdf', 'Download']);
        const [download] = await Promise.all([page.waitForEvent('download'), file.getByRole('link', { name: 'Download' }).click()]);
        assert.equal(download.suggestedFilename(), 'facture été.pdf');
        assert.deepEqual(await readFile((await download.path())!), pdf);
        // The value was shown as text: no script ran, no image tag was made of it.
        assert.equal(await form.locator('img').count(), 0);
        assert.deepEqual([w.errors, w.dialogs], [[], []]);
    });

    it('shows why a form could not be described in full, and no Form section for a body that is no form', async () => {
        const cut = multipart([{ name: 'a', value: '1' }, { name: 'b', value: '2' }]);
        const broken = await capture(cut.body.subarray(0, cut.body.length - 10), cut.contentType);
        await open(broken);
        await poll(() => page.locator('.form-view .form-error').textContent()).toMatch(/^truncated/);
        await poll(() => page.locator('.form-fields tr').allTextContents()).toEqual(['a1']);
        const plain = await capture(Buffer.from('{"a":1}'), 'application/json');
        await open(plain);
        await page.locator('h3', { hasText: 'Body' }).waitFor();
        assert.equal(await page.locator('.form-view').count(), 0);
        assert.equal(await page.locator('h3', { hasText: /^Form$/ }).count(), 0);
    });
});
