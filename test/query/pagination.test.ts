import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { logs, MINUTE, sendSeed, startQueryService, T0, type TestClock } from './seed.js';

const SUMMARY_KEYS = ['contentType', 'detailUrl', 'id', 'method', 'processingTime', 'requestId', 'requestUrl', 'signatureProvider', 'signatureValid', 'size', 'statusCode', 'timestamp', 'webhookId'];

describe('GET /logs pagination', () => {
    let svc: TestService;
    let clock: TestClock;
    let wh: string[];
    let sent = 0;
    /** Sends one more POST (event n at T0 + n minutes) with a body of n bytes-ish. */
    const send = async (): Promise<void> => {
        const n = sent++;
        await sendSeed(svc, clock, wh, { wh: n % 3, method: 'POST', ip: '10.1.0.1', ua: 'pager', contentType: 'application/json', body: JSON.stringify({ n, pad: 'x'.repeat((n * 37) % 101) }) }, n);
    };
    const pathOf = (url: string): string => url.slice(url.indexOf('/logs'));

    beforeAll(async () => {
        ({ svc, clock, webhooks: wh } = await startQueryService());
        for (let i = 0; i < 25; i++) await send();
    });
    afterAll(() => svc.close());

    it('offset mode answers filters, count, total, items, nextOffset and nextPageUrl', async () => {
        const page = await logs(svc, 'limit=10&method=post');
        assert.deepEqual(Object.keys(page), ['filters', 'count', 'total', 'items', 'nextOffset', 'nextPageUrl']);
        assert.deepEqual(page.filters, { limit: 10, offset: 0, sort: [{ field: 'timestamp', dir: 'desc' }], method: 'post' });
        assert.equal(page.count, 10);
        assert.equal(page.total, 25);
        assert.equal(page.nextOffset, 10);
        assert.deepEqual(Object.keys(page.items[0]!).sort(), SUMMARY_KEYS);
        assert.equal(page.items[0]!.timestamp, new Date(T0 + 24 * MINUTE).toISOString());
        assert.match(page.nextPageUrl ?? '', /^http:\/\/localhost:\d+\/logs\?limit=10&method=post&offset=10$/);
        const detail = await svc.fetch(pathOf(page.items[0]!.detailUrl));
        assert.equal(detail.status, 200);
        assert.equal(((await detail.json()) as { id: string }).id, page.items[0]!.id);
    });

    it('follows nextPageUrl to the end, where nextOffset and nextPageUrl are null', async () => {
        const seen: string[] = [];
        let path: string | null = '/logs?limit=7';
        let pages = 0;
        while (path) {
            const page = await logs(svc, path.slice('/logs?'.length));
            seen.push(...page.items.map((i) => i.id));
            path = page.nextPageUrl === null ? null : pathOf(page.nextPageUrl);
            assert.equal(page.nextOffset === null, page.nextPageUrl === null);
            pages++;
        }
        assert.equal(pages, 4);
        assert.equal(new Set(seen).size, 25);
        const past = await logs(svc, 'offset=25');
        assert.deepEqual([past.count, past.total, past.nextOffset, past.nextPageUrl], [0, 25, null, null]);
    });

    it('defaults limit to 10000 and offset to 0, and clamps what is out of range', async () => {
        const cases: [string, number, number][] = [
            ['', 10000, 0], ['limit=0', 1, 0], ['limit=-5', 1, 0], ['limit=2.7', 2, 0], ['limit=1e2', 100, 0],
            ['limit=999999999', 10000, 0], ['offset=-3', 10000, 0], ['offset=4&limit=3', 3, 4], ['offset=1.9', 10000, 1],
        ];
        for (const [qs, limit, offset] of cases) {
            const page = await logs(svc, qs);
            assert.deepEqual([page.filters?.limit, page.filters?.offset], [limit, offset], qs);
            assert.equal(page.count, Math.max(0, Math.min(limit, 25 - offset)), qs);
        }
    });

    it('cursor mode answers count, items, nextCursor and nextPageUrl, with no total', async () => {
        const first = await logs(svc, 'cursor=&limit=10&offset=20');
        assert.deepEqual(Object.keys(first), ['count', 'items', 'nextCursor', 'nextPageUrl']);
        assert.equal(first.count, 10, 'cursor takes precedence over offset');
        assert.match(first.nextCursor ?? '', /^[A-Za-z0-9_-]+$/);
        const second = await logs(svc, pathOf(first.nextPageUrl!).slice('/logs?'.length));
        const third = await logs(svc, `cursor=${second.nextCursor}&limit=10`);
        assert.deepEqual([second.count, third.count, third.nextCursor, third.nextPageUrl], [10, 5, null, null]);
        const ids = [first, second, third].flatMap((p) => p.items.map((i) => i.id));
        assert.deepEqual(ids, (await logs(svc, '')).items.map((i) => i.id));
    });

    it('ends with a null nextCursor when the last page is exactly full', async () => {
        const page = await logs(svc, 'cursor=&limit=25');
        assert.deepEqual([page.count, page.nextCursor], [25, null]);
    });

    it('returns each event exactly once while new events arrive between pages, for any sort', async () => {
        for (const sort of ['timestamp:desc', 'timestamp:asc', 'size:desc', 'statusCode:asc,size:asc', 'webhookId:desc,timestamp:asc']) {
            const before = (await logs(svc, '')).items.map((i) => i.id);
            const seen: string[] = [];
            let cursor = '';
            for (let guard = 0; guard < 200; guard++) {
                const page = await logs(svc, `sort=${sort}&limit=4&cursor=${cursor}`);
                seen.push(...page.items.map((i) => i.id));
                if (!page.nextCursor) break;
                cursor = page.nextCursor;
                await send();
                await send();
            }
            assert.equal(new Set(seen).size, seen.length, `no event twice under ${sort}`);
            for (const id of before) assert.ok(seen.includes(id), `event ${id} seen under ${sort}`);
        }
    });

    it('refuses a cursor issued for another sort, and a tampered one, naming cursor', async () => {
        const { nextCursor } = await logs(svc, 'cursor=&limit=2&sort=size:desc');
        for (const qs of [`cursor=${nextCursor}&limit=2`, `cursor=${nextCursor}&sort=size:asc`, `cursor=${nextCursor!.slice(0, -3)}&sort=size:desc`]) {
            const body = await logs(svc, qs, 400);
            assert.equal(body.parameter, 'cursor', qs);
            assert.match(body.message ?? '', /'cursor'/);
        }
        const ok = await logs(svc, `cursor=${nextCursor}&limit=2&sort=size:DESC`);
        assert.equal(ok.count, 2, 'the direction spelling does not change the sort');
    });
});
