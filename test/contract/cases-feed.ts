import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { ContractContext } from './contract.js';
import { appendAll, events, feedOrder, newEvent, replay } from './factory.js';
import { until } from '../helpers/until.js';

/** LiveFeed: resume after an id, and events other instances committed. */
export function feedCases(ctx: ContractContext): void {
    describe('LiveFeed', () => {
        it('entriesAfter gives full entries committed after an id, in capture order, up to limit', async () => {
            const s = ctx.storage();
            // Neither ids nor timestamps follow the capture order: only the commit order counts.
            const list = [newEvent({ id: 'z', timestamp: 5 }), newEvent({ id: 'b', timestamp: 9 }), newEvent({ id: 'y', timestamp: 1 }), newEvent({ id: 'a', timestamp: 7 })];
            await appendAll(s, list);
            await s.events.recordReplay('y', replay(3));
            const after = await s.feed.entriesAfter('z', 10);
            assert.deepEqual(after?.map((e) => e.id), ['b', 'y', 'a']);
            assert.deepEqual(after?.[1]?.replays, [replay(3)], 'full entries, with replays');
            assert.deepEqual(after?.[0]?.body, { id: 'b', kind: 'contract' });
            assert.deepEqual((await s.feed.entriesAfter('z', 2))?.map((e) => e.id), ['b', 'y']);
            assert.deepEqual(await s.feed.entriesAfter('a', 10), []);
            assert.equal(await s.feed.entriesAfter('unknown', 10), undefined);
        });

        it('entriesAfter with bodyLimit does not read a body larger than it', async () => {
            const s = ctx.storage();
            const large = 'L'.repeat(5000);
            await appendAll(s, [newEvent({ id: 'start' }), newEvent({ id: 'large', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.from(large), size: 5000 }), newEvent({ id: 'small', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.from('tiny'), size: 4 })]);
            const after = await s.feed.entriesAfter('start', 10, 1000);
            assert.deepEqual(after?.map((e) => e.id), ['large', 'small']);
            assert.notEqual(after?.[0]?.body, large, 'the large body is not carried');
            assert.equal(after?.[1]?.body, 'tiny');
            assert.equal((await s.feed.entriesAfter('start', 10))?.[0]?.body, large, 'without bodyLimit it is');
        });

        it("onForeignEvents never reports this instance's own commits, and unsubscribes", async () => {
            const s = ctx.storage();
            const heard: string[] = [];
            const stop = s.feed.onForeignEvents((ids) => heard.push(...ids));
            await appendAll(s, events('own', 5));
            await new Promise((r) => setTimeout(r, 1500));
            stop();
            stop();
            assert.deepEqual(heard, []);
        });

        it('entriesOf gives the entries of the ids that exist, in the order asked, bodies over bodyLimit unread', async () => {
            const s = ctx.storage();
            await appendAll(s, [newEvent({ id: 'p' }), newEvent({ id: 'q', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.from('Q'.repeat(3000)), size: 3000 }), newEvent({ id: 'r' })]);
            await s.events.recordReplay('r', replay(1));
            const got = await s.feed.entriesOf(['r', 'gone', 'q', 'p'], 1000);
            assert.deepEqual(got.map((e) => e.id), ['r', 'q', 'p']);
            assert.deepEqual(got[0]?.replays, [replay(1)], 'full entries, with replays');
            assert.notEqual(got[1]?.body, 'Q'.repeat(3000), 'the large body is not carried');
            assert.deepEqual(await s.feed.entriesOf([]), []);
        });

        it('onCommitted reports every commit, own ones too, in commit order, exactly when the feed orders the live stream', async () => {
            const s = ctx.storage();
            assert.equal(s.feed.ordersLive, ctx.shared);
            const heard: string[] = [];
            const stop = s.feed.onCommitted((ids) => heard.push(...ids));
            const list = events('committed', 12);
            await appendAll(s, list.slice(0, 6));
            await Promise.all(list.slice(6).map((e) => s.events.append(e)));
            if (s.feed.ordersLive) await until('every committed id', async () => (heard.length >= list.length ? true : undefined), 10_000);
            else await new Promise((r) => setTimeout(r, 1200));
            stop();
            assert.deepEqual(heard, s.feed.ordersLive ? await feedOrder(s, 'committed-000') : []);
        });

        it('caughtUp resolves once onCommitted has delivered every event committed before the call', async () => {
            const s = ctx.storage();
            const heard: string[] = [];
            const stop = s.feed.onCommitted((ids) => heard.push(...ids));
            const list = events('caught', 30);
            await Promise.all(list.map((e) => s.events.append(e)));
            await s.feed.caughtUp();
            stop();
            assert.deepEqual([...heard].sort(), s.feed.ordersLive ? list.map((e) => e.id).sort() : []);
        });

        if (!ctx.shared) return;
        it("onForeignEvents reports another instance's commits once each, in commit order, within seconds", async () => {
            const a = ctx.storage();
            const b = await ctx.peer();
            const heard: string[] = [];
            const stop = a.feed.onForeignEvents((ids) => heard.push(...ids));
            const list = events('foreign', 40);
            await appendAll(b, list.slice(0, 20));
            await Promise.all(list.slice(20).map((e) => b.events.append(e)));
            await until('every foreign id', async () => (heard.length >= list.length ? true : undefined), 10_000);
            await new Promise((r) => setTimeout(r, 1200));
            stop();
            assert.equal(new Set(heard).size, heard.length, 'each once');
            assert.deepEqual(heard, await feedOrder(b, 'foreign-000'), 'in commit order');
            await a.events.append(newEvent({ id: 'after-stop' }));
            assert.equal(heard.includes('after-stop'), false);
        });
    });
}
