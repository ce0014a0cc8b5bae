import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import type { LogsPage, LogsQuery } from '../../src/storage/query-types.js';
import { planLogsQuery, runLogsQuery } from '../../src/storage/sqlite/query.js';
import { splitRange } from '../../src/storage/sqlite/query/pass.js';
import type { NewEvent } from '../../src/storage/types.js';
import { openPoolFixture, type PoolFixture } from './pools.js';
import { storedEvent, T0 } from './seed.js';

const AGENTS = ['zeta', 'Alpha', 'alpha', 'émile', '😀 bot', '\uFFFD', 'a'];
const IPS = ['10.0.0.2', '10.0.0.10', '2001:db8::1', '', '192.168.0.1'];
// More than the 5,000-event window, so that absent and rare terms need a pass in any order.
const EVENTS = 8000;
const rare = (i: number): boolean => i % 89 === 5;

// Passes over every body split over two workers against the same pass on one thread.
describe('full passes split over the query workers', () => {
    let fx: PoolFixture;
    let db: PoolFixture['db'];
    let split: PoolFixture['split'];
    beforeAll(async () => {
        const events: NewEvent[] = [];
        for (let i = 0; i < EVENTS; i++) {
            const e = storedEvent({
                id: `p${String((i * 7919) % EVENTS).padStart(4, '0')}`, webhookId: `wh_${i % 3}`, timestamp: T0 + (i % 400) * 1000, method: ['POST', 'GET', 'PUT'][i % 3]!,
                statusCode: [200, 404, 500, 201][i % 4]!, size: i % 13, userAgent: AGENTS[i % AGENTS.length]!, remoteIp: IPS[i % IPS.length]!,
                bodyKind: 'json', bodyRaw: Buffer.from(JSON.stringify({ kind: rare(i) ? 'rare' : 'plain', n: i })),
            });
            if (i % 4 === 1) e.signatureProvider = i % 8 === 1 ? 'stripe' : 'github';
            events.push(e);
        }
        // Every pass is split (from one event up), in slices of 97 inside each part.
        fx = await openPoolFixture('whd-parallel-', events, { splitFrom: 1, slice: 97 });
        ({ db, split } = fx);
    });
    afterAll(() => fx.close());

    let passes = 0;
    const same = async (q: LogsQuery, label: string): Promise<LogsPage> => {
        if ('pass' in planLogsQuery(db, q)) passes++;
        return fx.same(q, label);
    };

    it('splits seq ranges into adjacent, non-empty parts', () => {
        assert.deepEqual(splitRange(10, 2), [[0, 5], [5, 10]]);
        assert.deepEqual(splitRange(7, 3), [[0, 2], [2, 5], [5, 7]]);
        assert.deepEqual(splitRange(1, 2), [[0, 1]]);
        assert.deepEqual(splitRange(0, 2), [[0, 0]]);
    });

    it('gives the same pages and totals as one thread, offset mode', async () => {
        const queries = ['body=rare', 'body=no-such-term&limit=100', 'body=rare&sort=userAgent:asc', 'body=rare&sort=remoteIp:desc,size:asc',
            'body=rare&sort=signatureProvider:asc&offset=3&limit=5', 'body=rare&offset=30&limit=10', 'body=rare&offset=500', 'body=PLAIN&sort=method:asc&limit=7&offset=40',
            'body[kind]=rare&sort=userAgent:desc&limit=4', 'body=rare&webhookId=wh_1&sort=size:desc', 'body=rare&remoteIp=10.0.0.0/8&sort=timestamp:asc',
            'body=rare&sort=remoteIp:asc&limit=3', 'body=rare&body=kind&method=PUT'];
        for (const qs of queries) {
            const page = await same(parseLogsQuery(new URLSearchParams(qs)), qs);
            assert.equal(typeof page.total, 'number', qs);
        }
        const all = await split.run(parseLogsQuery(new URLSearchParams('body=rare&limit=10000')));
        const expected = Array.from({ length: EVENTS }, (_, i) => i).filter(rare).length;
        assert.equal(all.total, expected);
        assert.equal(all.items.length, expected);
        assert.ok(passes >= 5, `pages came from passes (${passes})`);
    });

    it('pages with the same cursors as one thread, each event once', async () => {
        passes = 0;
        for (const sort of ['userAgent:asc', 'remoteIp:desc', 'signatureProvider:desc,size:asc', 'timestamp:desc']) {
            const ids: string[] = [];
            let q = parseLogsQuery(new URLSearchParams(`body=rare&sort=${sort}&limit=4&cursor=`));
            let pages = 0;
            for (; pages < 100; pages++) {
                const page = await same(q, `${sort} page ${pages}`);
                ids.push(...page.items.map((i) => i.id));
                if (!page.next) break;
                q = { ...q, cursor: page.next };
            }
            assert.ok(pages > 1, 'more than one page');
            assert.equal(new Set(ids).size, ids.length);
            assert.equal(ids.length, Array.from({ length: EVENTS }, (_, i) => i).filter(rare).length, sort);
        }
        assert.ok(passes > 10, `pages came from passes (${passes})`);
    });

    it('answers concurrent split queries each with its own result', async () => {
        const qs = ['body=rare&sort=size:asc&limit=5', 'body=no-such-term', 'body=rare&sort=userAgent:desc&offset=7&limit=3', 'body=rare&cursor=&limit=6'];
        const queries = qs.map((s) => parseLogsQuery(new URLSearchParams(s)));
        const pages = await Promise.all(queries.map((q) => split.run(q)));
        pages.forEach((page, i) => assert.deepEqual(page, runLogsQuery(db, queries[i]!), qs[i]));
    });
});
