import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SORT_FIELDS, type SortRule } from '../../src/storage/query-types.js';
import type { NewEvent } from '../../src/storage/types.js';
import type { TestService } from '../helpers/service.js';
import { expectedOrder, sortEvents } from './model.js';
import { logs, startQueryService } from './seed.js';

/** Every id in order, paging by cursor `limit` at a time. */
async function pageAllByCursor(svc: TestService, qs: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor = '';
    for (let guard = 0; guard < 100; guard++) {
        const page = await logs(svc, `${qs}&limit=${limit}&cursor=${cursor}`);
        ids.push(...page.items.map((i) => i.id));
        if (page.nextCursor === null) return ids;
        assert.ok(page.nextCursor, 'a full page carries a nextCursor');
        cursor = page.nextCursor;
    }
    throw new Error('cursor paging did not end');
}

// Sorting is checked against an independent model of the order over events with many ties.
describe('GET /logs sort', () => {
    let svc: TestService;
    let events: NewEvent[];
    const sortParam = (rules: SortRule[]): string => `sort=${rules.map((r) => `${r.field}:${r.dir}`).join(',')}`;

    beforeAll(async () => {
        const started = await startQueryService();
        svc = started.svc;
        events = sortEvents(started.webhooks);
        for (const e of events) await svc.deps.storage.events.append(e);
    });
    afterAll(() => svc.close());

    it('defaults to timestamp:DESC with ties broken by id, and echoes the sort', async () => {
        const page = await logs(svc, '');
        assert.deepEqual(page.items.map((i) => i.id), expectedOrder(events, [{ field: 'timestamp', dir: 'desc' }]));
        assert.deepEqual(page.filters?.sort, [{ field: 'timestamp', dir: 'desc' }]);
    });

    for (const field of SORT_FIELDS) {
        for (const dir of ['asc', 'desc'] as const) {
            it(`sorts by ${field}:${dir} in offset and cursor mode alike`, async () => {
                const rules: SortRule[] = [{ field, dir }];
                const expected = expectedOrder(events, rules);
                const page = await logs(svc, sortParam(rules));
                assert.deepEqual(page.items.map((i) => i.id), expected);
                assert.deepEqual(await pageAllByCursor(svc, sortParam(rules), 5), expected);
            });
        }
    }

    it('applies several rules in turn, mixed directions included', async () => {
        const combos: SortRule[][] = [
            [{ field: 'statusCode', dir: 'desc' }, { field: 'timestamp', dir: 'asc' }],
            [{ field: 'method', dir: 'asc' }, { field: 'size', dir: 'desc' }, { field: 'processingTime', dir: 'asc' }],
            [{ field: 'signatureValid', dir: 'desc' }, { field: 'signatureProvider', dir: 'asc' }, { field: 'signatureError', dir: 'desc' }],
            [{ field: 'remoteIp', dir: 'asc' }, { field: 'userAgent', dir: 'desc' }],
            [{ field: 'webhookId', dir: 'asc' }, { field: 'id', dir: 'desc' }],
            [{ field: 'contentType', dir: 'desc' }, { field: 'requestUrl', dir: 'asc' }, { field: 'requestId', dir: 'asc' }],
        ];
        for (const rules of combos) {
            const expected = expectedOrder(events, rules);
            assert.deepEqual((await logs(svc, sortParam(rules))).items.map((i) => i.id), expected, sortParam(rules));
            for (const limit of [1, 4, 7]) assert.deepEqual(await pageAllByCursor(svc, sortParam(rules), limit), expected, `${sortParam(rules)} by ${limit}`);
        }
    });

    it('reads the direction in any case and defaults a bare field to asc', async () => {
        const page = await logs(svc, 'sort=statusCode:DESC,size:Asc');
        assert.deepEqual(page.filters?.sort, [{ field: 'statusCode', dir: 'desc' }, { field: 'size', dir: 'asc' }]);
        assert.deepEqual(page.items.map((i) => i.id), expectedOrder(events, [{ field: 'statusCode', dir: 'desc' }, { field: 'size', dir: 'asc' }]));
        const bare = await logs(svc, 'sort=size');
        assert.deepEqual(bare.items.map((i) => i.id), expectedOrder(events, [{ field: 'size', dir: 'asc' }]));
    });

    it('orders addresses by value in their IPv6 form, not as text: 10.0.0.2 before 10.0.0.10', async () => {
        const page = await logs(svc, 'sort=remoteIp:asc&remoteIp=::/0');
        const ips = (await Promise.all(page.items.map(async (i) => ((await (await svc.fetch(`/logs/${i.id}?fields=remoteIp`)).json()) as { remoteIp: string }).remoteIp)));
        const distinct = ips.filter((ip, i) => ips.indexOf(ip) === i);
        assert.deepEqual(distinct, ['::1', '10.0.0.2', '10.0.0.10', '192.168.0.1', '2001:db8::1']);
    });

    it('filters on signatureValid and signatureProvider exactly', async () => {
        const count = async (qs: string): Promise<number | undefined> => (await logs(svc, qs)).total;
        const valid = events.filter((e) => e.signatureValid === true).length;
        const invalid = events.filter((e) => e.signatureValid === false).length;
        assert.deepEqual([valid, invalid], [8, 8]);
        assert.equal(await count('signatureValid=true'), valid);
        assert.equal(await count('signatureValid=FALSE'), invalid);
        assert.equal(await count('signatureProvider=stripe'), 12);
        assert.equal(await count('signatureProvider=github'), 6);
        assert.equal(await count('signatureProvider=Stripe'), 0);
        assert.equal(await count('signatureProvider=stripe&signatureValid=true'), events.filter((e) => e.signatureProvider === 'stripe' && e.signatureValid === true).length);
        assert.equal(await count('processingTime=2.5'), events.filter((e) => e.processingTime === 2.5).length);
        const page = await logs(svc, 'signatureProvider=github&limit=1');
        assert.equal(page.items[0]?.signatureProvider, 'github');
    });
});
