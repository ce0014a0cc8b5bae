import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

const d = runBrowserTests ? describe : describe.skip;
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });
const KEY = 'bulk-key';
const auth = { authorization: `Bearer ${KEY}` };

// "Replay N matching…" beside the filters (issue 37): the target, the dry run's count, then the
// progress bar with cancel, and the list of jobs, in Chromium against a real receiver.
d('dashboard: bulk replay, in Chromium', () => {
    let svc: TestService;
    let target: Receiver;
    let browser: Browser;
    let w: WatchedPage;
    let page: Page;

    beforeAll(async () => {
        ensureDashboardBuilt();
        target = await startReceiver();
        svc = await startTestService({ input: { rateLimitPerMinute: 0, authKey: KEY, urlCount: 2 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        for (let i = 0; i < 40; i++) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}?key=${KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"i":${i}}` });
            await res.arrayBuffer();
        }
        browser = await launchBrowser();
        w = await openPage(browser);
        page = w.page;
        await page.goto(`${svc.deps.baseUrl()}/?key=${KEY}`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
        await target?.close();
    });

    it('asks for the target, shows the dry-run count, then the progress with cancel, and lists the job', async () => {
        const open = page.getByTestId('bulk-open');
        expect(await open.isDisabled(), 'a job needs a filter').toBe(true);
        await page.locator('select[name=webhookId]').selectOption(svc.webhookId);
        await page.getByRole('button', { name: 'Apply' }).click();
        await poll(() => open.textContent()).toBe('Replay 40 matching…');
        await open.click();
        await page.getByLabel('Bulk replay target URL').fill(`${target.url}/bulk`);
        await page.getByLabel('Sends per second').fill('4');
        await page.getByTestId('bulk-count').click();
        await poll(() => page.getByTestId('bulk-preview').textContent()).toContain('40 captures match');
        expect(await page.getByTestId('bulk-preview').textContent()).toContain('at least 10 s');
        expect(target.requests, 'the dry run sends nothing').toHaveLength(0);

        await page.getByTestId('bulk-start').click();
        const progress = page.getByTestId('job-progress');
        await poll(() => progress.getAttribute('data-state')).toBe('running');
        await poll(() => target.requests.length).toBeGreaterThanOrEqual(3);
        await page.getByTestId('job-cancel').click();
        await poll(() => progress.getAttribute('data-state')).toBe('cancelled');
        const sent = target.requests.length;
        expect(sent).toBeLessThan(40);
        expect(await progress.textContent()).toContain(`cancelled: ${sent} of 40`);
        expect(await progress.locator('progress').getAttribute('value')).toBe(String(sent));

        const jobs = await json<{ items: { id: string; state: string; sent: number }[] }>(await svc.fetch('/replay-jobs', { headers: auth }));
        expect(jobs.items[0]).toMatchObject({ state: 'cancelled', sent });
        const row = page.locator(`[data-testid=job-list] tr[data-job="${jobs.items[0]!.id}"]`);
        await poll(() => row.textContent()).toContain('cancelled');
        expect(target.requests.every((r) => r.url === '/bulk')).toBe(true);
        expect(w.errors).toEqual([]);
    });
});
