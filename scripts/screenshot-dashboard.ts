// Regenerates docs/dashboard.png, the README's picture of a populated dashboard:
//   npx tsx scripts/screenshot-dashboard.ts
// It starts the service on a temporary storage, sends a few sample webhooks and photographs the page
// in headless Chromium (/usr/bin/chromium) at 1280x800.
import { ensureDashboardBuilt, launchBrowser, openPage } from '../test/browser/browser.js';
import { startTestService } from '../test/helpers/service.js';

ensureDashboardBuilt();
const svc = await startTestService({ input: { rateLimitPerMinute: 0, enableJSONParsing: true } });
const base = svc.deps.baseUrl();
const send = (path: string, init: RequestInit): Promise<string> => fetch(`${base}/webhook/${svc.webhookId}${path}`, init).then((r) => r.text());
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
await send('/stripe', json({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { amount: 2000, currency: 'usd' } } }, { 'user-agent': 'Stripe/1.0' }));
await send('/github?delivery=42', json({ action: 'opened', number: 7, pull_request: { title: 'Fix the flux capacitor' } }, { 'x-github-event': 'pull_request', 'user-agent': 'GitHub-Hookshot/abc' }));
await send('/orders?__status=500', json({ order: 1001, items: [{ sku: 'A-1', qty: 2 }] }));
await send('/ping', { method: 'GET' });
await send('/upload', { method: 'PUT', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]), headers: { 'content-type': 'image/png' } });
await send('/shopify', json({ id: 820982911946154500, email: 'jon@example.com', total_price: '199.00', line_items: [{ title: 'IPod Nano', price: '199.00' }] }, { 'x-shopify-topic': 'orders/create' }));
const browser = await launchBrowser();
const { page } = await openPage(browser, { width: 1280, height: 800 });
await page.goto(`${base}/`);
await page.locator('.row').nth(5).waitFor();
await page.locator('.row').first().click();
await page.locator('.detail').waitFor();
await page.screenshot({ path: 'docs/dashboard.png' });
await browser.close();
await svc.close();
console.log('wrote docs/dashboard.png');
