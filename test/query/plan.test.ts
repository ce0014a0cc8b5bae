import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Filter, SortRule } from '../../src/storage/query-types.js';
import type { NewEvent } from '../../src/storage/types.js';
import { choosePlan } from '../../src/storage/sqlite/query/plan.js';
import type { TestService } from '../helpers/service.js';
import { expectedOrder } from './model.js';
import { logs, startQueryService, storedEvent, T0 } from './seed.js';

const status = (op: 'gte' | 'eq', value: number): Filter => ({ kind: 'range', field: 'statusCode', op, value });
const bySize: SortRule[] = [{ field: 'size', dir: 'desc' }, { field: 'timestamp', dir: 'desc' }, { field: 'id', dir: 'desc' }];
const byTime: SortRule[] = [{ field: 'timestamp', dir: 'desc' }, { field: 'id', dir: 'desc' }];

describe('query plan choice', () => {
    it('walks the sort index when the competing filter matches many rows, sorts in memory when few', () => {
        const inputs = { filters: [status('gte', 400)], order: bySize, reach: 100, rows: () => 1_000_000 };
        assert.deepEqual(choosePlan({ ...inputs, probe: (_c, cap) => cap }), { sortInMemory: false, unindexed: new Set(['e.status_code']) });
        assert.deepEqual(choosePlan({ ...inputs, probe: () => 500 }), { sortInMemory: true, unindexed: new Set() });
    });

    it('leaves SQLite alone when nothing competes', () => {
        const never = (): number => assert.fail('no probe expected');
        const none = { sortInMemory: false, unindexed: new Set() };
        assert.deepEqual(choosePlan({ filters: [status('eq', 404)], order: byTime, reach: 100, rows: () => 1e6, probe: never }), none, '(status_code, ts) serves both');
        assert.deepEqual(choosePlan({ filters: [{ kind: 'exact', field: 'webhookId', value: 'w' }], order: byTime, reach: 100, rows: () => 1e6, probe: never }), none);
        assert.deepEqual(choosePlan({ filters: [{ kind: 'exact', field: 'method', value: 'GET' }], order: bySize, reach: 100, rows: () => 1e6, probe: never }), none);
        assert.deepEqual(choosePlan({ filters: [status('gte', 400)], order: [{ field: 'method', dir: 'asc' }], reach: 100, rows: () => 1e6, probe: never }), none);
        assert.deepEqual(choosePlan({ filters: [{ kind: 'range', field: 'size', op: 'gt', value: 5 }], order: bySize, reach: 100, rows: () => 1e6, probe: never }), none);
    });

    describe('body search: the in-order window and the sequential pass agree', () => {
        let svc: TestService;
        const events: NewEvent[] = [];
        beforeAll(async () => {
            ({ svc } = await startQueryService());
            for (let i = 0; i < 12_000; i++) {
                const word = i % 1499 === 7 ? 'Needle' : i % 3 === 0 ? 'common' : 'plain';
                const raw = Buffer.from(JSON.stringify({ kind: word, n: i }));
                events.push(storedEvent({ id: `b${String(i).padStart(5, '0')}`, webhookId: 'wh_body', timestamp: T0 + (i % 4000) * 1000, size: i % 50, statusCode: i % 2 ? 200 : 500, bodyKind: 'json', bodyRaw: raw }));
            }
            for (let i = 0; i < events.length; i += 3000) await svc.deps.storage.events.importEvents(events.slice(i, i + 3000));
        });
        afterAll(() => svc.close());

        it('finds rare and common terms in every mode and order', async () => {
            const cases: [string, (e: NewEvent) => boolean][] = [
                ['body=needle', (e) => Buffer.from(e.bodyRaw!).toString().includes('Needle')],
                ['body[kind]=Needle&statusCode[gte]=500', (e) => Buffer.from(e.bodyRaw!).toString().includes('Needle') && e.statusCode >= 500],
                ['body=COMMON', (e) => Buffer.from(e.bodyRaw!).toString().includes('common')],
            ];
            for (const [qs, keep] of cases) {
                for (const sort of ['timestamp:desc', 'size:asc', 'method:asc']) {
                    const rules: SortRule[] = [{ field: sort.split(':')[0] as SortRule['field'], dir: sort.endsWith('asc') ? 'asc' : 'desc' }];
                    const expected = expectedOrder(events.filter(keep), rules);
                    const page = await logs(svc, `${qs}&sort=${sort}&limit=3&offset=2`);
                    assert.deepEqual(page.items.map((i) => i.id), expected.slice(2, 5), `${qs} ${sort}`);
                    assert.equal(page.total, expected.length, `${qs} ${sort} total`);
                    const first = await logs(svc, `${qs}&sort=${sort}&limit=3&cursor=`);
                    const second = await logs(svc, `${qs}&sort=${sort}&limit=3&cursor=${first.nextCursor ?? ''}`);
                    assert.ok(first.nextCursor, `${qs} ${sort}: more than one page`);
                    assert.deepEqual([...first.items, ...second.items].map((i) => i.id), expected.slice(0, 6), `${qs} ${sort} by cursor`);
                }
            }
            const needles = events.filter(cases[0]![1]).length;
            assert.equal(needles, 9);
            assert.equal((await logs(svc, 'body=needle&offset=100')).total, needles, 'a page past the end still counts');
        });
    });

    describe('both plans give the same, correct pages', () => {
        let svc: TestService;
        const events: NewEvent[] = [];
        beforeAll(async () => {
            ({ svc } = await startQueryService());
            for (let i = 0; i < 3000; i++) {
                events.push(storedEvent({ id: `p${String(i).padStart(5, '0')}`, webhookId: 'wh_plan', timestamp: T0 + (i % 700) * 1000, statusCode: [200, 404, 500][i % 3]!, size: (i * 7919) % 97 }));
            }
            await svc.deps.storage.events.importEvents(events);
        });
        afterAll(() => svc.close());

        it('matches the model with a broad filter (sort index walked) and a narrow one (sorted in memory)', async () => {
            for (const [qs, keep] of [['statusCode[gte]=404', (e: NewEvent) => e.statusCode >= 404], ['size[gt]=95', (e: NewEvent) => e.size > 95]] as const) {
                for (const sort of ['size:desc', 'timestamp:asc', 'statusCode:asc']) {
                    const rules: SortRule[] = [{ field: sort.split(':')[0] as SortRule['field'], dir: sort.endsWith('asc') ? 'asc' : 'desc' }];
                    const expected = expectedOrder(events.filter(keep), rules);
                    const page = await logs(svc, `${qs}&sort=${sort}&limit=20&offset=10`);
                    assert.deepEqual(page.items.map((i) => i.id), expected.slice(10, 30), `${qs} ${sort}`);
                    assert.equal(page.total, expected.length);
                    const ids: string[] = [];
                    let cursor = '';
                    do {
                        const next = await logs(svc, `${qs}&sort=${sort}&limit=250&cursor=${cursor}`);
                        ids.push(...next.items.map((i) => i.id));
                        cursor = next.nextCursor ?? '';
                    } while (cursor);
                    assert.deepEqual(ids, expected, `${qs} ${sort} by cursor`);
                }
            }
        });
    });
});
