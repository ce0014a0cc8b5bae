import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verify } from '@octokit/webhooks-methods';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { ensureDashboardBuilt, launchBrowser, openPage, runBrowserTests, type WatchedPage } from './browser.js';

const d = runBrowserTests ? describe : describe.skip;
const SECRET = 'gh-secret';

d('dashboard with signature verification', () => {
    let svc: TestService;
    let browser: Browser;
    let w: WatchedPage;
    let receiver: Server;
    let receiverUrl: string;
    const got: { headers: IncomingHttpHeaders; body: string }[] = [];

    beforeAll(async () => {
        ensureDashboardBuilt();
        receiver = createServer((req, res) => {
            let body = '';
            req.on('data', (c: Buffer) => (body += c.toString()));
            req.on('end', () => {
                got.push({ headers: req.headers, body });
                res.writeHead(204).end();
            });
        });
        await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
        receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/gh`;
        svc = await startTestService({
            input: { rateLimitPerMinute: 0, signatureVerification: { provider: 'github' }, signatureVerificationSecret: SECRET },
            env: { SSRF_ALLOWLIST: '127.0.0.1/32' },
        });
        browser = await launchBrowser();
        w = await openPage(browser);
    });
    afterAll(async () => {
        await browser?.close();
        await svc?.close();
        receiver?.close();
    });

    it('badges a bad signature, shows its error, and re-signs a replay so the receiver can verify it', async () => {
        const base = svc.deps.baseUrl();
        const body = '{"action":"opened"}';
        const res = await fetch(`${base}/webhook/${svc.webhookId}/gh`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } });
        expect(res.status).toBe(200);
        const page = w.page;
        await page.goto(`${base}/`);
        const row = page.locator('.row', { hasText: '/gh' });
        await row.waitFor();
        expect(await row.locator('.badge.bad').textContent()).toContain('sig');
        await row.click();
        const detail = page.locator('.detail');
        await detail.waitFor();
        expect(await detail.locator('.signature').textContent()).toMatch(/github: invalid\s*\S+/);
        await detail.locator('input[name=target]').fill(receiverUrl);
        await detail.locator('input[name=resign]').check();
        await detail.getByRole('button', { name: 'Replay' }).click();
        await expect.poll(() => detail.locator('[data-testid=replay-result]').textContent(), { timeout: 15_000 }).toContain('(re-signed)');
        const sent = got.at(-1);
        expect(sent?.body).toBe(body);
        expect(await verify(SECRET, sent?.body ?? '', String(sent?.headers['x-hub-signature-256']))).toBe(true);
        expect(await detail.locator('.history tbody tr').textContent()).toContain('re-signed');
        expect(w.errors).toEqual([]);
    });
});
