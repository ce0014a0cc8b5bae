import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

/** A webhook as GET /webhooks lists it, as far as these tests look. */
interface Hook {
    id: string;
    url: string;
    name: string | null;
    expiresAt: string;
    response: Record<string, unknown> | null;
}

const d = runBrowserTests ? describe : describe.skip;
// The page renders asynchronously; on a busy 2-core CI box a second is not always enough.
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });
const KEY = 'manage-key';
const auth = { authorization: `Bearer ${KEY}` };

// Every management call the page makes must carry the key: the page is opened as /?key=… and the
// service refuses management calls without it.
d('dashboard: webhooks you manage, in Chromium', () => {
    let svc: TestService;
    let base: string;
    let browser: Browser;
    let w: WatchedPage;
    let page: Page;

    const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> => {
        const res = await svc.fetch(path, { ...init, headers: { ...auth, ...(init.headers as Record<string, string> | undefined) } });
        return { status: res.status, body: res.status === 204 ? (null as T) : await json<T>(res) };
    };
    const hooks = async (): Promise<Hook[]> => (await api<{ items: Hook[] }>('/webhooks')).body.items;
    /** Sends a request to a webhook URL and returns its answer (status, headers, body). */
    const hit = async (url: string, init: RequestInit = {}): Promise<{ status: number; headers: Headers; body: string }> => {
        const res = await fetch(url, { method: 'POST', body: 'ping', ...init, headers: { ...auth, 'content-type': 'text/plain' } });
        return { status: res.status, headers: res.headers, body: await res.text() };
    };
    /** Captures a request on a webhook and returns its log id. */
    const capture = async (hook: Hook, path: string): Promise<string> => {
        const res = await fetch(`${hook.url}${path}`, { method: 'POST', body: path, headers: { ...auth, 'content-type': 'text/plain' } });
        await res.arrayBuffer();
        const requestId = res.headers.get('x-request-id');
        const list = await api<{ items: { id: string; requestId: string }[] }>(`/logs?limit=100&webhookId=${hook.id}`);
        const item = list.body.items.find((i) => i.requestId === requestId);
        assert.ok(item, 'capture not stored');
        return item.id;
    };
    const hookRow = (id: string): Locator => page.locator(`.hook[data-id="${id}"]`);
    const row = (id: string): Locator => page.locator(`.row[data-id="${id}"]`);
    const editor = (): Locator => page.getByRole('dialog', { name: 'Webhook settings' });
    const question = (): Locator => page.getByRole('alertdialog');
    const openEditor = async (id: string): Promise<Locator> => {
        await hookRow(id).getByRole('button', { name: 'Edit' }).click();
        await editor().waitFor();
        return editor();
    };
    const clipboard = (): Promise<string> => page.evaluate<string>('navigator.clipboard.readText()');

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { rateLimitPerMinute: 0, authKey: KEY, urlCount: 3 } });
        base = svc.deps.baseUrl();
        browser = await launchBrowser();
        w = await openPage(browser, { origin: base });
        page = w.page;
        await page.goto(`${base}/?key=${KEY}`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
        await page.locator('.hook').nth(2).waitFor();
    });
    // A test that failed with a dialog open would leave it over the page for the next ones.
    afterEach(async () => {
        if (await page.locator('dialog[open]').count()) await page.reload();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
    });

    it('"New URL" creates a webhook that GET /webhooks lists; it is shown, copyable and receives', async () => {
        const before = (await hooks()).map((h) => h.id);
        await page.getByRole('button', { name: 'New URL' }).click();
        await poll(async () => (await hooks()).length).toBe(before.length + 1);
        const made = (await hooks()).find((h) => !before.includes(h.id));
        assert.ok(made);
        expect(made.url).toBe(`${base}/webhook/${made.id}`);
        await hookRow(made.id).waitFor();
        expect(await hookRow(made.id).locator('.hook-url').textContent()).toBe(made.url);
        expect(await page.locator('.hooks-bar [role=status]').textContent()).toContain(made.url);
        await hookRow(made.id).getByRole('button', { name: 'Copy URL' }).click();
        await poll(clipboard).toBe(made.url);
        expect((await hit(made.url)).status).toBe(200);
        // The filter bar offers it too.
        expect(await page.locator(`select[name=webhookId] option[value="${made.id}"]`).count()).toBe(1);
    });

    it('the editor saves a name and a 503 answer with headers, body and Retry-After; a real request then gets exactly that', async () => {
        const hook = (await hooks())[0]!;
        const dialog = await openEditor(hook.id);
        const name = '<img src=x onerror="window.__xss=1"> staging';
        await dialog.getByLabel(/^Name/).fill(name);
        await dialog.getByLabel(/^Status/).fill('503');
        await dialog.getByLabel(/^Headers/).fill('X-From-Editor: yes');
        await dialog.getByLabel(/^Body/).fill('down for a test');
        await dialog.getByLabel(/^Retry-After/).fill('7');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        const got = await hit(hook.url);
        expect(got.status).toBe(503);
        expect(got.headers.get('retry-after')).toBe('7');
        expect(got.headers.get('x-from-editor')).toBe('yes');
        expect(got.body).toBe('down for a test');
        const stored = (await api<Hook>(`/webhooks/${hook.id}`)).body;
        expect(stored.name).toBe(name);
        expect(stored.response).toEqual({ statusCode: 503, headers: { 'X-From-Editor': 'yes' }, body: 'down for a test', retryAfterSeconds: 7 });
        // The row shows the name as text (never as markup) and the answer.
        expect(await hookRow(hook.id).locator('.hook-name').textContent()).toBe(name);
        expect(await hookRow(hook.id).locator('.badge.answer').textContent()).toContain('503');
        expect(await page.evaluate<number>(`document.querySelectorAll('#app img').length`)).toBe(0);
        // Opened again, the editor shows what is stored.
        const again = await openEditor(hook.id);
        expect(await again.getByLabel(/^Status/).inputValue()).toBe('503');
        expect(await again.getByLabel(/^Headers/).inputValue()).toBe('X-From-Editor: yes');
        await again.getByRole('button', { name: 'Close' }).click();
        await editor().waitFor({ state: 'detached' });
    });

    it('the editor saves a sequence, then a failure rate with its status, then clears the answer; each takes effect on the next request', async () => {
        const hook = (await hooks())[1]!;
        let dialog = await openEditor(hook.id);
        await dialog.getByLabel(/^Sequence/).fill('500, 500, 200');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) statuses.push((await hit(hook.url)).status);
        expect(statuses).toEqual([500, 500, 200, 200]);
        expect(await hookRow(hook.id).locator('.badge.answer').textContent()).toContain('sequence 500, 500, 200');

        dialog = await openEditor(hook.id);
        await dialog.getByLabel(/^Sequence/).fill('');
        await dialog.getByLabel(/^Failure rate/).fill('1');
        await dialog.getByLabel(/^Failure status/).fill('429');
        await dialog.getByLabel(/^Retry-After/).fill('3');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        const failed = await hit(hook.url);
        expect(failed.status).toBe(429);
        expect(failed.headers.get('retry-after')).toBe('3');
        expect((await api<Hook>(`/webhooks/${hook.id}`)).body.response).toEqual({ failureRate: 1, failureStatusCode: 429, retryAfterSeconds: 3 });

        // Every answer field emptied: the webhook goes back to the run's default answer.
        dialog = await openEditor(hook.id);
        for (const label of ['Failure rate', 'Failure status', 'Retry-After']) await dialog.getByLabel(label).fill('');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        expect((await api<Hook>(`/webhooks/${hook.id}`)).body.response).toBeNull();
        expect((await hit(hook.url)).status).toBe(200);
        expect(await hookRow(hook.id).locator('.badge.answer').count()).toBe(0);
    });

    it('the editor sets the expiry in hours from now', async () => {
        const hook = (await hooks())[1]!;
        const dialog = await openEditor(hook.id);
        await dialog.getByLabel(/^Expires in/).fill('2');
        const saved = Date.now();
        await dialog.getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        const expires = Date.parse((await api<Hook>(`/webhooks/${hook.id}`)).body.expiresAt);
        expect(Math.abs(expires - (saved + 2 * 3_600_000))).toBeLessThan(60_000);
        await poll(() => hookRow(hook.id).textContent()).toMatch(/[12]h \d+m left/);
    });

    it("shows the API's 400 details next to the form, marks the field, and changes nothing", async () => {
        const hook = (await hooks())[2]!;
        const dialog = await openEditor(hook.id);
        const patches: number[] = [];
        const onResponse = (r: { status(): number; request(): { method(): string } }): void => void (r.request().method() === 'PATCH' && patches.push(r.status()));
        page.on('response', onResponse);
        await dialog.getByLabel(/^Status/).fill('42');
        await dialog.getByLabel(/^Expires in/).fill('1000');
        await dialog.getByRole('button', { name: 'Save' }).click();
        const errors = dialog.locator('.form-errors[role=alert]');
        await errors.waitFor();
        expect(patches).toEqual([400]);
        expect(await errors.textContent()).toMatch(/statusCode|retentionHours/);
        expect(await dialog.getByLabel(/^Status/).getAttribute('aria-invalid')).toBe('true');
        expect((await api<Hook>(`/webhooks/${hook.id}`)).body.response).toBeNull();
        expect((await hit(hook.url)).status).toBe(200);
        // What cannot be sent at all is caught before any request.
        await dialog.getByLabel(/^Expires in/).fill('');
        await dialog.getByLabel(/^Status/).fill('abc');
        await dialog.getByRole('button', { name: 'Save' }).click();
        await poll(() => errors.textContent()).toContain('must be a number');
        expect(patches).toEqual([400]);
        // Esc closes the editor without saving.
        await page.keyboard.press('Escape');
        await editor().waitFor({ state: 'detached' });
        expect((await api<Hook>(`/webhooks/${hook.id}`)).body.response).toBeNull();
        page.off('response', onResponse);
    });

    it("clears a URL's captures after a confirmation (Cancel keeps them) and leaves other URLs' captures", async () => {
        const [other, hook] = [(await hooks())[0]!, (await hooks())[2]!];
        const kept = await capture(other, '/kept');
        const before = (await api<{ items: { id: string }[] }>(`/logs?webhookId=${hook.id}`)).body.items.length;
        const ids = [await capture(hook, '/a'), await capture(hook, '/b'), await capture(hook, '/c')];
        await row(ids[2]!).waitFor();
        const dialog = await openEditor(hook.id);
        await dialog.getByRole('button', { name: 'Clear captures' }).click();
        await question().getByRole('button', { name: 'Cancel' }).click();
        await question().waitFor({ state: 'detached' });
        expect((await api<{ items: unknown[] }>(`/logs?webhookId=${hook.id}`)).body.items).toHaveLength(before + 3);
        await dialog.getByRole('button', { name: 'Clear captures' }).click();
        expect(await question().textContent()).toContain('Delete every capture');
        await question().getByRole('button', { name: 'Delete captures' }).click();
        await poll(() => dialog.getByRole('status').textContent()).toBe(`Deleted ${before + 3} captures.`);
        expect((await api<{ items: unknown[] }>(`/logs?webhookId=${hook.id}`)).body.items).toEqual([]);
        for (const id of ids) expect((await api(`/logs/${id}`)).status).toBe(404);
        expect((await api(`/logs/${kept}`)).status).toBe(200);
        await dialog.getByRole('button', { name: 'Close' }).click();
        for (const id of ids) expect(await row(id).count()).toBe(0);
        await row(kept).waitFor();
    });

    it('deletes the open capture with the Delete key after a confirmation (Esc cancels), and with its button', async () => {
        const hook = (await hooks())[0]!;
        const first = await capture(hook, '/del-key');
        const second = await capture(hook, '/del-button');
        await row(first).click();
        await page.locator(`.detail[data-id="${first}"]`).waitFor();
        await page.locator('.top h1').click();
        await page.keyboard.press('Delete');
        await question().waitFor();
        expect(await question().getByRole('heading').textContent()).toBe('Delete capture');
        await page.keyboard.press('Escape');
        await question().waitFor({ state: 'detached' });
        expect((await api(`/logs/${first}`)).status).toBe(200);
        await page.keyboard.press('Delete');
        await question().getByRole('button', { name: 'Delete capture' }).click();
        await poll(async () => (await api(`/logs/${first}`)).status).toBe(404);
        await row(first).waitFor({ state: 'detached' });
        await page.locator(`.detail[data-id="${first}"]`).waitFor({ state: 'detached' });

        await row(second).click();
        await page.locator(`.detail[data-id="${second}"]`).getByRole('button', { name: 'Delete capture' }).click();
        await question().getByRole('button', { name: 'Delete capture' }).click();
        await poll(async () => (await api(`/logs/${second}`)).status).toBe(404);
        await row(second).waitFor({ state: 'detached' });
    });

    it('deletes a URL after a confirmation: GET /webhooks drops it, ingest on it is 404 and its captures are gone', async () => {
        const hook = (await hooks()).at(-1)!;
        const id = await capture(hook, '/before-delete');
        await row(id).waitFor();
        const dialog = await openEditor(hook.id);
        await dialog.getByRole('button', { name: 'Delete URL' }).click();
        expect(await question().textContent()).toContain(hook.url);
        await question().getByRole('button', { name: 'Delete URL' }).click();
        await editor().waitFor({ state: 'detached' });
        await hookRow(hook.id).waitFor({ state: 'detached' });
        expect((await hooks()).map((h) => h.id)).not.toContain(hook.id);
        expect((await api(`/webhooks/${hook.id}`)).status).toBe(404);
        expect((await hit(hook.url)).status).toBe(404);
        expect((await api(`/logs/${id}`)).status).toBe(404);
        await row(id).waitFor({ state: 'detached' });
    });

    it('a named webhook with its own answer does not widen a 390 px window (its row wraps), and the editor fits', async () => {
        const named = (await hooks())[0]!;
        const patch = { name: 'Stripe staging (EU), retries', response: { statusCode: 503, sequence: [{ statusCode: 500 }, { statusCode: 500 }, { statusCode: 200 }], failureRate: 0.25, delayMs: 1500 } };
        expect((await api(`/webhooks/${named.id}`, { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } })).status).toBe(200);
        const narrow = await openPage(browser, { width: 390, height: 800, colorScheme: 'dark' });
        try {
            await narrow.page.goto(`${base}/?key=${KEY}`);
            const hookRow = narrow.page.locator(`.hook[data-id="${named.id}"]`);
            await hookRow.locator('.badge.answer').waitFor();
            expect(await narrow.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
            await hookRow.getByRole('button', { name: 'Edit' }).click();
            const dialog = narrow.page.getByRole('dialog', { name: 'Webhook settings' });
            await dialog.waitFor();
            const box = await dialog.boundingBox();
            expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
            expect(narrow.errors).toEqual([]);
        } finally {
            await narrow.context.close();
        }
    });

    it('ran without a script error, a CSP violation or a browser dialog', () => {
        expect(w.errors).toEqual([]);
        expect(w.dialogs).toEqual([]);
    });
});
