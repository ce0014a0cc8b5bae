import { describe, expect, it } from 'vitest';
import { json } from '../helpers/service.js';
import { runBrowserTests, useDashboard } from './browser.js';

const d = runBrowserTests ? describe : describe.skip;
const poll = <T>(fn: () => T | Promise<T>, timeout = 60_000) => expect.poll(fn, { timeout, interval: 200 });
const N = 10_000;

d('dashboard with 10,000 captures', () => {
    const f = useDashboard({ input: { rateLimitPerMinute: 0 } });

    it('takes 10,000 live captures while keeping only the rows in view in the DOM', { timeout: 180_000 }, async () => {
        const base = f.svc.deps.baseUrl();
        const page = f.w.page;
        await page.goto(`${base}/`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
        let next = 0;
        const worker = async (): Promise<void> => {
            while (next < N) {
                const n = next++;
                const res = await fetch(`${base}/webhook/${f.svc.webhookId}?n=${n}`, { method: 'POST', body: `{"n":${n}}`, headers: { 'content-type': 'application/json' } });
                await res.arrayBuffer();
            }
        };
        await Promise.all(Array.from({ length: 16 }, worker));
        await poll(() => page.locator('[data-testid=count]').textContent()).toBe(`${N} captures`);
        const rows = await page.locator('.row').count();
        expect(rows).toBeGreaterThan(10);
        expect(rows).toBeLessThan(80);
        // The newest is on top; scrolling to the end shows the oldest, in the server's order.
        const order = (await json<{ items: { id: string }[] }>(await f.svc.fetch(`/logs?limit=${N}`))).items.map((i) => i.id);
        expect(await page.locator('.row').first().getAttribute('data-id')).toBe(order[0]);
        await page.locator('.list').evaluate((el) => (el.scrollTop = el.scrollHeight));
        await poll(() => page.locator('.row').last().getAttribute('data-id'), 10_000).toBe(order[N - 1]);
        expect(await page.locator('.row').count()).toBeLessThan(80);
        // Keyboard navigation still works at the end of a long list.
        await page.locator('.row').last().click();
        await page.locator('.top h1').click();
        await page.keyboard.press('k');
        await page.keyboard.press('Enter');
        await page.locator(`.detail[data-id="${order[N - 2]}"]`).waitFor();
    });

    it('pages older captures through cursor mode after a reload, without duplicates', async () => {
        const page = f.w.page;
        await page.reload();
        await poll(() => page.locator('[data-testid=count]').textContent()).toBe('200 captures');
        const older = page.waitForRequest((r) => r.url().includes('/logs?cursor=') && !r.url().includes('cursor=&'));
        await page.getByRole('button', { name: 'Load older' }).click();
        expect(new URL((await older).url()).searchParams.get('cursor')).not.toBe('');
        await poll(() => page.locator('[data-testid=count]').textContent()).toBe('400 captures');
        await page.locator('.list').evaluate((el) => (el.scrollTop = el.scrollHeight));
        const order = (await json<{ items: { id: string }[] }>(await f.svc.fetch('/logs?limit=400'))).items.map((i) => i.id);
        await poll(() => page.locator('.row').last().getAttribute('data-id'), 10_000).toBe(order[399]);
        const ids = await page.locator('.row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));
        expect(new Set(ids).size).toBe(ids.length);
        expect(f.w.errors).toEqual([]);
    });
});
