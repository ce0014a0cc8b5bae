import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

// The webhook editor edits answers by rule (add, remove, reorder, conditions as key/value rows, the
// answer with its template), and a capture's detail says which rule answered, with a link that lists
// what the rule's conditions match in history.

interface Hook {
    id: string;
    url: string;
    response: { rules?: { name?: string; when: Record<string, unknown>; answer: Record<string, unknown> }[] } | null;
}

const d = runBrowserTests ? describe : describe.skip;
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000, interval: 50 });

d('dashboard: answers by rule, in Chromium', () => {
    let svc: TestService;
    let base: string;
    let browser: Browser;
    let w: WatchedPage;
    let page: Page;

    const hooks = async (): Promise<Hook[]> => (await json<{ items: Hook[] }>(await svc.fetch('/webhooks'))).items;
    const editor = (): Locator => page.getByRole('dialog', { name: 'Webhook settings' });
    const rule = (n: number): Locator => editor().getByRole('group', { name: `Rule ${n}` });
    /** Sends a JSON event to the webhook; its X-Request-Id. */
    const send = async (hook: Hook, body: unknown): Promise<{ status: number; text: string; requestId: string }> => {
        const res = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: res.status, text: await res.text(), requestId: res.headers.get('x-request-id')! };
    };
    const logId = async (requestId: string): Promise<string> => (await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${requestId}`))).items[0]!.id;

    beforeAll(async () => {
        ensureDashboardBuilt();
        svc = await startTestService({ input: { rateLimitPerMinute: 0, urlCount: 1 } });
        base = svc.deps.baseUrl();
        browser = await launchBrowser();
        w = await openPage(browser, { origin: base });
        page = w.page;
        await page.goto(`${base}/`);
        await page.locator('[data-testid=stream]', { hasText: 'live' }).waitFor();
        await page.locator('.hook').first().waitFor();
    });
    // A test that failed with the editor open would leave it over the page for the next ones.
    afterEach(async () => {
        if (await page.locator('dialog[open]').count()) await page.reload();
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
    });

    it('adds, fills, reorders and removes rules, and saves them in order', async () => {
        const [hook] = await hooks();
        assert.ok(hook);
        await page.locator(`.hook[data-id="${hook.id}"]`).getByRole('button', { name: 'Edit' }).click();
        await editor().waitFor();
        const add = editor().getByRole('button', { name: 'Add rule' });
        await add.click();
        await add.click();
        await add.click();
        // Rule 1: everything, 202. Rule 2: voided invoices, 400 with a template. Rule 3: removed again.
        await rule(1).getByLabel('Rule 1 name').fill('everything');
        await rule(1).getByRole('button', { name: 'Remove rule 1 condition 1' }).click();
        await rule(1).locator('input[name=ruleStatus]').fill('202');
        await rule(2).getByLabel('Rule 2 name').fill('voided');
        await rule(2).getByLabel('Rule 2 condition 1 parameter').fill('body[type]');
        await rule(2).getByLabel('Rule 2 condition 1 value').fill('invoice.voided');
        await rule(2).getByRole('button', { name: 'Add condition' }).click();
        await rule(2).getByLabel('Rule 2 condition 2 parameter').fill('method');
        await rule(2).getByLabel('Rule 2 condition 2 value').fill('POST');
        await rule(2).locator('input[name=ruleStatus]').fill('400');
        await rule(2).locator('textarea[name=ruleBody]').fill('{"voided": "{{request.body.id}}"}');
        await rule(3).getByLabel('Rule 3 name').fill('gone');
        await editor().getByRole('button', { name: 'Remove rule 3', exact: true }).click();
        // The specific rule must come first, or "everything" would answer every request.
        await editor().getByRole('button', { name: 'Move rule 2 up', exact: true }).click();
        expect(await rule(1).getByLabel('Rule 1 name').inputValue()).toBe('voided');
        await editor().getByRole('button', { name: 'Save' }).click();
        await editor().waitFor({ state: 'detached' });
        const saved = (await hooks()).find((h) => h.id === hook.id)!;
        expect(saved.response?.rules).toEqual([
            { name: 'voided', when: { 'body[type]': 'invoice.voided', method: 'POST' }, answer: { statusCode: 400, body: '{"voided": "{{request.body.id}}"}' } },
            { name: 'everything', when: {}, answer: { statusCode: 202 } },
        ]);
        const voided = await send(saved, { type: 'invoice.voided', id: 'in_9' });
        expect([voided.status, JSON.parse(voided.text)]).toEqual([400, { voided: 'in_9' }]);
        expect((await send(saved, { type: 'invoice.paid' })).status).toBe(202);
        // Editing again shows the stored rules as they were saved.
        await page.locator(`.hook[data-id="${hook.id}"]`).getByRole('button', { name: 'Edit' }).click();
        expect(await rule(1).getByLabel('Rule 1 condition 2 value').inputValue()).toBe('POST');
        expect(await rule(2).locator('input[name=ruleStatus]').inputValue()).toBe('202');
        await editor().getByRole('button', { name: 'Close' }).click();
    });

    it("shows the API's problem with a condition at its path and marks the field", async () => {
        const [hook] = await hooks();
        await page.locator(`.hook[data-id="${hook!.id}"]`).getByRole('button', { name: 'Edit' }).click();
        await rule(1).getByLabel('Rule 1 condition 1 parameter').fill('statusCode');
        await editor().getByRole('button', { name: 'Save' }).click();
        const errors = editor().locator('.form-errors[role=alert]');
        await poll(() => errors.textContent()).toContain('response.rules.0.when.statusCode');
        expect(await rule(1).getByLabel('Rule 1 condition 1 parameter').getAttribute('aria-invalid')).toBe('true');
        await editor().getByRole('button', { name: 'Close' }).click();
    });

    it("says which rule answered a capture, and its link lists what the rule's conditions match", async () => {
        const [hook] = await hooks();
        const voided = await send(hook!, { type: 'invoice.voided', id: 'in_10' });
        const paid = await send(hook!, { type: 'invoice.paid' });
        const [voidedId, paidId] = [await logId(voided.requestId), await logId(paid.requestId)];
        await page.locator(`.row[data-id="${voidedId}"]`).click();
        const line = page.getByTestId('answered-by');
        await poll(() => line.textContent()).toContain('Answered by rule voided');
        await line.getByRole('link', { name: 'list what it matches' }).click();
        await page.getByTestId('extra-filter').waitFor();
        // Every voided invoice (two, one from the first test) and nothing else.
        await poll(() => page.locator('.row').count()).toBe(2);
        expect(await page.locator(`.row[data-id="${voidedId}"]`).count()).toBe(1);
        expect(await page.locator(`.row[data-id="${paidId}"]`).count()).toBe(0);
        await page.getByTestId('extra-filter').getByRole('button', { name: 'Remove this filter' }).click();
        await poll(() => page.locator(`.row[data-id="${paidId}"]`).count()).toBe(1);
        expect(w.errors).toEqual([]);
    });
});
