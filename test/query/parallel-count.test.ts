import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import type { LogsQuery } from '../../src/storage/query-types.js';
import { planLogsQuery, runLogsQuery } from '../../src/storage/sqlite/query.js';
import type { NewEvent } from '../../src/storage/types.js';
import { openPoolFixture, type PoolFixture } from './pools.js';
import { storedEvent, T0 } from './seed.js';

// More than the 5,000-event window; a quarter of the bodies hold the term, so pages come from the
// window and their totals need a count over every body.
const EVENTS = 9000;
const hot = (i: number): boolean => i % 4 === 0;

function events(from: number, to: number): NewEvent[] {
    const out: NewEvent[] = [];
    for (let i = from; i < to; i++) {
        out.push(storedEvent({
            id: `c${String(i).padStart(5, '0')}`, webhookId: `wh_${i % 3}`, timestamp: T0 + (i % 400) * 1000, method: ['POST', 'GET', 'PUT'][i % 3]!,
            statusCode: [200, 404, 500, 201][i % 4]!, size: i % 13, userAgent: 'agent', remoteIp: ['10.0.0.2', '2001:db8::1'][i % 2]!,
            bodyKind: 'json', bodyRaw: Buffer.from(JSON.stringify({ kind: hot(i) ? 'hot' : 'cold', n: i })),
        }));
    }
    return out;
}

// Offset-mode totals counted by seq range on two workers against one worker and the in-thread path.
describe('offset totals counted over the query workers', () => {
    let fx: PoolFixture;
    let db: PoolFixture['db'];
    let split: PoolFixture['split'];
    beforeAll(async () => {
        // Counts over 1,000 events or more are split, in slices of 97 inside each part.
        fx = await openPoolFixture('whd-parallel-count-', events(0, EVENTS), { splitFrom: 1000, slice: 97 });
        ({ db, split } = fx);
    });
    afterAll(() => fx.close());

    const QUERIES = ['body=hot&limit=100', 'body[kind]=hot&limit=100', 'body=hot&offset=200&limit=50', 'body[kind]=hot&method=POST&limit=10',
        'body=hot&remoteIp=10.0.0.0/8&limit=20', 'body=HOT&sort=size:asc&limit=100'];

    const same = async (q: LogsQuery, label: string): Promise<number> => {
        const a = await fx.same(q, label);
        assert.equal(typeof a.total, 'number', label);
        return a.total!;
    };

    it('gives the same totals as one worker and the in-thread path, also after appends', async () => {
        let deferred = 0;
        for (const qs of QUERIES) {
            const q = parseLogsQuery(new URLSearchParams(qs));
            const planned = planLogsQuery(db, q, { deferCountFrom: 1000 });
            if ('count' in planned && planned.count) deferred++;
            await same(q, qs);
        }
        assert.ok(deferred >= 4, `totals left to the pool (${deferred})`);
        const q = parseLogsQuery(new URLSearchParams('body=hot&limit=100'));
        assert.equal(await same(q, 'first'), EVENTS / 4);
        // Again from the cache, then after a few new events (counted above the cached seq, unsplit),
        // then after many (split again).
        assert.equal(await same(q, 'cached'), EVENTS / 4);
        for (const [from, to] of [[EVENTS, EVENTS + 40], [EVENTS + 40, EVENTS + 3000]] as const) {
            await fx.store.importEvents(events(from, to));
            for (const qs of QUERIES) await same(parseLogsQuery(new URLSearchParams(qs)), `${qs} up to ${to}`);
            assert.equal(await same(q, `up to ${to}`), Array.from({ length: to }, (_, i) => i).filter(hot).length);
        }
    });

    it('answers concurrent counted queries each with its own total', async () => {
        const queries = QUERIES.map((s) => parseLogsQuery(new URLSearchParams(s)));
        const pages = await Promise.all([...queries, ...queries].map((q) => split.run(q)));
        pages.forEach((page, i) => assert.deepEqual(page, runLogsQuery(db, queries[i % queries.length]!), QUERIES[i % QUERIES.length]));
    });
});
