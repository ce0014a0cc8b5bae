import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { CursorPosition } from '../../src/storage/query-types.js';
import type { Storage } from '../../src/storage/roles.js';
import type { ContractContext } from './contract.js';
import { appendAll, events, logsQuery, newEvent, rejectsWithStatus, T0 } from './factory.js';

/** Pages a cursor query to its end; `between` runs after each page (e.g. inserts). */
async function pageAll(s: Storage, qs: string, between: (page: number) => Promise<void> = async () => undefined): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: CursorPosition | null = null;
    for (;;) {
        const page = await s.events.query({ ...logsQuery(qs), cursor });
        assert.equal(page.total, undefined, 'cursor mode has no total');
        pages.push(page.items.map((i) => i.id));
        if (!page.next) return pages;
        assert.ok(pages.length < 200, 'paging ends');
        cursor = page.next;
        await between(pages.length);
    }
}

/** EventLog.query: offset pages, filters, sorts, cursors and their errors. */
export function queryCases(ctx: ContractContext): void {
    describe('EventLog.query', () => {
        it('lists newest first in offset mode with the total, limit and offset', async () => {
            const s = ctx.storage();
            // Appended out of timestamp order: the sort, not the capture order, decides.
            const list = events('q', 12);
            await appendAll(s, [...list.slice(6), ...list.slice(0, 6)]);
            const page = await s.events.query(logsQuery('limit=5&offset=2'));
            assert.equal(page.total, 12);
            assert.deepEqual(page.items.map((i) => i.id), ['q-009', 'q-008', 'q-007', 'q-006', 'q-005']);
            assert.equal(page.items[0]!.timestamp, new Date(T0 + 9000).toISOString());
            const asc = await s.events.query(logsQuery('sort=timestamp:asc&limit=3'));
            assert.deepEqual(asc.items.map((i) => i.id), ['q-000', 'q-001', 'q-002']);
            const beyond = await s.events.query(logsQuery('offset=50'));
            assert.deepEqual([beyond.items.length, beyond.total], [0, 12]);
        });

        it('filters and sorts as the route asks, with ties broken by id', async () => {
            const s = ctx.storage();
            await appendAll(s, [
                newEvent({ id: 'f1', webhookId: 'wh_1', statusCode: 404, method: 'GET', timestamp: T0 + 1 }),
                newEvent({ id: 'f2', webhookId: 'wh_2', statusCode: 200, timestamp: T0 + 2, userAgent: 'Stripe/1.0' }),
                newEvent({ id: 'f3', webhookId: 'wh_1', statusCode: 500, timestamp: T0 + 3, remoteIp: '2001:db8::1' }),
                newEvent({ id: 'f4', webhookId: 'wh_1', statusCode: 200, timestamp: T0 + 3, bodyRaw: Buffer.from('{"needle":"found"}'), size: 18 }),
            ]);
            const ids = async (qs: string): Promise<string[]> => (await s.events.query(logsQuery(qs))).items.map((i) => i.id);
            assert.deepEqual(await ids('webhookId=wh_1'), ['f4', 'f3', 'f1']);
            assert.deepEqual(await ids('statusCode[gte]=400&sort=statusCode:asc'), ['f1', 'f3']);
            assert.deepEqual(await ids('method=GET'), ['f1']);
            assert.deepEqual(await ids('userAgent=stripe'), ['f2']);
            assert.deepEqual(await ids('remoteIp=2001:db8::/32'), ['f3']);
            assert.deepEqual(await ids('body=needle'), ['f4']);
            assert.deepEqual(await ids('body[needle]=found'), ['f4']);
            assert.deepEqual(await ids('sort=timestamp:asc'), ['f1', 'f2', 'f3', 'f4']);
            assert.equal((await s.events.query(logsQuery('webhookId=wh_none'))).total, 0);
        });

        it('pages with a cursor, each event once, with no next after the last page', async () => {
            const s = ctx.storage();
            await appendAll(s, events('c', 23));
            for (const qs of ['cursor=&limit=5', 'cursor=&limit=5&sort=timestamp:asc', 'cursor=&limit=4&sort=statusCode:asc,id:desc']) {
                const pages = await pageAll(s, qs);
                const seen = pages.flat();
                assert.equal(seen.length, 23, qs);
                assert.equal(new Set(seen).size, 23, `${qs}: no duplicates`);
            }
        });

        it('a cursor paged while events are appended shows every event present at the start once, with no duplicates', async () => {
            const s = ctx.storage();
            const start = events('p', 30, {}, T0 + 100_000);
            await appendAll(s, start);
            // On a shared backend the inserts come from another instance.
            const writer = ctx.shared ? await ctx.peer() : s;
            for (const sort of ['', '&sort=timestamp:asc']) {
                let n = 0;
                // New events land before, after and between the rows already paged.
                const insert = async (): Promise<void> => {
                    for (const at of [T0, T0 + 100_000 + 15_500, T0 + 999_000]) await writer.events.append(newEvent({ id: `new-${sort ? 'a' : 'd'}-${n++}`, timestamp: at }));
                };
                const seen = (await pageAll(s, `cursor=&limit=4${sort}`, insert)).flat();
                assert.equal(new Set(seen).size, seen.length, `${sort}: no duplicates`);
                const missing = start.map((e) => e.id).filter((id) => !seen.includes(id));
                assert.deepEqual(missing, [], `${sort}: no gaps`);
            }
        });

        it('rejects a cursor that does not fit the sort with a 400 (BadRequestError)', async () => {
            const s = ctx.storage();
            await appendAll(s, events('b', 3));
            const q = logsQuery('cursor=&limit=2');
            await rejectsWithStatus(s.events.query({ ...q, cursor: { values: ['not a timestamp'], id: 'b-001' } }), 400, 'a string where the timestamp goes');
            await rejectsWithStatus(s.events.query({ ...q, cursor: { values: [T0, 1, 2], id: 'b-001' } }), 400, 'more values than sort rules');
        });

        it('rejects a query whose signal is already aborted', async () => {
            const s = ctx.storage();
            await appendAll(s, events('x', 2));
            const gone = new AbortController();
            gone.abort();
            await rejectsWithStatus(s.events.query(logsQuery(''), gone.signal), 499, 'client gone');
        });
    });
}
