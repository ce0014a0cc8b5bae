import { describe, expect, it } from 'vitest';
import { json } from '../helpers/service.js';
import { runBrowserTests, useDashboard } from './browser.js';

// The dashboard's replay history labels what sent each entry: deliveries recorded by `listen`
// (POST /logs/deliveries) say "listen" and their duration; replays made with POST /replay say "replay".

const d = runBrowserTests ? describe : describe.skip;

d('dashboard: listen deliveries in the replay history', () => {
    const f = useDashboard({ input: { rateLimitPerMinute: 0 } });

    it('labels a delivery recorded by listen "listen", with its status and duration', async () => {
        const base = f.svc.deps.baseUrl();
        const res = await fetch(`${base}/webhook/${f.svc.webhookId}/to-local`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
        expect(res.status).toBe(200);
        const [entry] = (await json<{ items: { id: string }[] }>(await f.svc.fetch('/logs?limit=1'))).items;
        const report = { eventId: entry!.id, target: 'http://localhost:3000/hooks/to-local', status: 503, durationMs: 12.5, error: null, attempts: 2 };
        const recorded = await f.svc.fetch('/logs/deliveries', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [report] }) });
        expect(await json(recorded)).toEqual({ recorded: 1, unknown: [] });
        const page = f.w.page;
        await page.goto(`${base}/`);
        const row = page.locator('.row', { hasText: '/to-local' });
        await row.waitFor();
        await row.click();
        const history = page.locator('.detail .history');
        await history.waitFor();
        const cells = await history.locator('tbody tr').first().locator('td').allTextContents();
        expect(cells.slice(1)).toEqual(['listen', 'http://localhost:3000/hooks/to-local', '503', '2', '12.5 ms']);
        expect(await history.locator('th').allTextContents()).toContain('By');
    });
});
