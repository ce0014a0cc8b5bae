import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import { SINK_POSITION_KEY } from '../../src/storage/meta-keys.js';
import type { ContractContext } from './contract.js';
import { appendAll, events, newEvent, outcome, replay } from './factory.js';
import { until } from '../helpers/until.js';

/** ExportOutbox and ForwardBacklog, one instance and (shared backends) two. */
export function outboxCases(ctx: ContractContext): void {
    describe('ExportOutbox', () => {
        it('readOutbox gives the oldest unexported events in capture order, up to limit', async () => {
            const s = ctx.storage();
            const list = events('o', 5);
            await appendAll(s, [list[3]!, list[0]!, list[4]!, list[1]!, list[2]!]);
            const all = await s.outbox.readOutbox(100);
            assert.deepEqual(all.map((o) => o.entry.id), ['o-003', 'o-000', 'o-004', 'o-001', 'o-002']);
            assert.ok(all.every((o, i) => i === 0 || o.seq > all[i - 1]!.seq), 'seq grows in capture order');
            assert.ok(all.every((o) => o.bytes > 0), 'every item counts bytes');
            assert.deepEqual(all[0]!.entry.body, { id: 'o-003', kind: 'contract' });
            assert.equal(all[0]!.rawText, JSON.stringify({ id: 'o-003', kind: 'contract' }));
            assert.deepEqual((await s.outbox.readOutbox(2)).map((o) => o.entry.id), ['o-003', 'o-000']);
            assert.deepEqual((await s.outbox.readOutbox(2, undefined, all[2]!.seq)).map((o) => o.entry.id), ['o-001', 'o-002']);
        });

        it('readOutbox slices by bytes: always the first event, then what fits; none after afterSeq when the next is over', async () => {
            const s = ctx.storage();
            await appendAll(s, [
                newEvent({ id: 'big', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.alloc(20_000, 'a'), size: 20_000 }),
                newEvent({ id: 's1' }),
                newEvent({ id: 's2' }),
                newEvent({ id: 'big2', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.alloc(20_000, 'b'), size: 20_000 }),
            ]);
            const all = await s.outbox.readOutbox(10);
            const [big, s1, s2] = all;
            assert.ok(big!.bytes >= 20_000, `the body counts (${big!.bytes})`);
            assert.deepEqual((await s.outbox.readOutbox(10, 100)).map((o) => o.entry.id), ['big'], 'the first one even when over maxBytes');
            assert.deepEqual((await s.outbox.readOutbox(10, 100, big!.seq)).map((o) => o.entry.id), [], 'after afterSeq, none when the first is over');
            const fit = s1!.bytes + s2!.bytes;
            assert.deepEqual((await s.outbox.readOutbox(10, fit, big!.seq)).map((o) => o.entry.id), ['s1', 's2']);
            assert.deepEqual((await s.outbox.readOutbox(10, fit + 100, big!.seq)).map((o) => o.entry.id), ['s1', 's2']);
        });

        it('markExported takes events up to seq off the outbox and commits the sink position with it', async () => {
            const s = ctx.storage();
            await appendAll(s, events('m', 5));
            const all = await s.outbox.readOutbox(10);
            await s.outbox.markExported(all[2]!.seq, 'position-3');
            assert.deepEqual((await s.outbox.readOutbox(10)).map((o) => o.entry.id), ['m-003', 'm-004']);
            assert.equal(await s.meta.getMeta(SINK_POSITION_KEY), 'position-3');
            assert.equal((await s.health.stats()).outboxBacklog, 2);
            await s.outbox.markExported(all[4]!.seq);
            assert.deepEqual(await s.outbox.readOutbox(10), []);
            assert.equal(await s.meta.getMeta(SINK_POSITION_KEY), 'position-3', 'no position given: the old one stays');
            assert.equal((await s.events.getEntry('m-000')).id, 'm-000', 'exported events stay stored');
        });

        it('getExportRecord gives the entry without replays, forward or decoded body, and the stored body', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'x' }));
            await s.events.recordReplay('x', replay(1));
            await s.forwards.recordForwards([{ eventId: 'x', outcome: outcome('delivered') }]);
            const { entry, body } = await s.outbox.getExportRecord('x');
            assert.equal(entry.id, 'x');
            assert.deepEqual(entry.headers, newEvent({ id: 'x' }).headers);
            for (const key of ['replays', 'forward', 'body', 'bodyEncoding']) assert.ok(!(key in entry) || (entry as Record<string, unknown>)[key] === undefined, `no ${key}`);
            assert.equal(body.raw?.toString('utf8'), JSON.stringify({ id: 'x', kind: 'contract' }));
            await assert.rejects(s.outbox.getExportRecord('none'), NotFoundError);
        });
    });

    describe('ForwardBacklog', () => {
        it('readForwardBacklog lists captures to forward in capture order with their exact flag, after afterSeq, up to limit', async () => {
            const s = ctx.storage();
            await appendAll(s, [
                newEvent({ id: 'f-b', forward: { exact: true } }),
                newEvent({ id: 'f-none' }),
                newEvent({ id: 'f-a', forward: { exact: false } }),
                newEvent({ id: 'f-c', forward: { exact: true } }),
            ]);
            const all = await s.forwards.readForwardBacklog(0, 10);
            assert.deepEqual(all.map((b) => [b.eventId, b.exact]), [['f-b', true], ['f-a', false], ['f-c', true]]);
            assert.ok(all[0]!.seq < all[1]!.seq && all[1]!.seq < all[2]!.seq);
            assert.deepEqual((await s.forwards.readForwardBacklog(all[0]!.seq, 1)).map((b) => b.eventId), ['f-a']);
            assert.deepEqual(await s.forwards.readForwardBacklog(all[2]!.seq, 10), []);
            assert.equal((await s.health.stats()).forwardBacklog, 3);
        });

        it('forwardSource gives the captured method, headers and body; undefined for an unknown id', async () => {
            const s = ctx.storage();
            const e = newEvent({ id: 'src', method: 'PUT', forward: { exact: true } });
            await s.events.append(e);
            const source = await s.forwards.forwardSource('src');
            assert.equal(source?.method, 'PUT');
            assert.deepEqual(source?.headers, e.headers);
            assert.equal(source?.body.raw?.toString('utf8'), Buffer.from(e.bodyRaw!).toString('utf8'));
            assert.equal(await s.forwards.forwardSource('none'), undefined);
        });

        it('recordForwards takes events off the backlog and the latest outcome wins', async () => {
            const s = ctx.storage();
            await appendAll(s, events('r', 3, { forward: { exact: true } }));
            await s.forwards.recordForwards([]);
            await s.forwards.recordForwards([{ eventId: 'r-000', outcome: outcome('failed', null) }, { eventId: 'r-002', outcome: outcome('delivered') }]);
            assert.deepEqual((await s.forwards.readForwardBacklog(0, 10)).map((b) => b.eventId), ['r-001']);
            assert.deepEqual((await s.events.getEntry('r-000')).forward, outcome('failed', null));
            await s.forwards.recordForwards([{ eventId: 'r-000', outcome: outcome('delivered', 202) }]);
            assert.deepEqual((await s.events.getEntry('r-000')).forward, outcome('delivered', 202));
            assert.equal((await s.events.getEntry('r-001')).forward, undefined);
            assert.equal((await s.health.stats()).forwardBacklog, 1);
        });
    });

    if (!ctx.shared) return;
    describe('ExportOutbox and ForwardBacklog across instances', () => {
        it('each instance claims its own captures: export and forwarding are done once', async () => {
            const a = ctx.storage();
            const b = await ctx.peer();
            await Promise.all([appendAll(a, events('A', 6, { forward: { exact: true } })), appendAll(b, events('B', 6, { forward: { exact: true } }))]);
            const [outA, outB] = await Promise.all([a.outbox.readOutbox(100), b.outbox.readOutbox(100)]);
            assert.deepEqual(outA.map((o) => o.entry.id).sort(), events('A', 6).map((e) => e.id));
            assert.deepEqual(outB.map((o) => o.entry.id).sort(), events('B', 6).map((e) => e.id));
            const [fwA, fwB] = await Promise.all([a.forwards.readForwardBacklog(0, 100), b.forwards.readForwardBacklog(0, 100)]);
            assert.deepEqual(fwA.map((f) => f.eventId).sort(), events('A', 6).map((e) => e.id));
            assert.deepEqual(fwB.map((f) => f.eventId).sort(), events('B', 6).map((e) => e.id));
            await a.outbox.markExported(outA[outA.length - 1]!.seq);
            assert.deepEqual((await b.outbox.readOutbox(100)).map((o) => o.entry.id).sort(), events('B', 6).map((e) => e.id), "A's watermark leaves B's claims alone");
        });

        it("a closed instance's outbox and backlog go out from the other, once", async () => {
            const a = ctx.storage();
            const b = await ctx.peer();
            await appendAll(a, events('gone', 4, { forward: { exact: true } }));
            await ctx.close(a);
            const ids = events('gone', 4).map((e) => e.id);
            const out = await until("the closed instance's outbox", async () => {
                const got = await b.outbox.readOutbox(100);
                return got.length > 0 ? got : undefined;
            }, 25_000);
            assert.deepEqual(out.map((o) => o.entry.id), ids);
            const backlog = await until("the closed instance's backlog", async () => {
                const got = await b.forwards.readForwardBacklog(0, 100);
                return got.length > 0 ? got : undefined;
            }, 25_000);
            assert.deepEqual(backlog.map((f) => f.eventId), ids);
            const c = await ctx.peer();
            assert.deepEqual(await c.outbox.readOutbox(100), [], 'claimed by B, not by a third');
            assert.deepEqual(await c.forwards.readForwardBacklog(0, 100), [], 'claimed by B, not by a third');
        });
    });
}
