import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { ContractContext } from './contract.js';
import { appendAll, events, listedIds, newEvent } from './factory.js';

/** StoreMeta, StoreHealth, and what survives a close. */
export function metaHealthCases(ctx: ContractContext): void {
    describe('StoreMeta', () => {
        it('getMeta answers undefined for an unknown key and the last value set', async () => {
            const s = ctx.storage();
            assert.equal(await s.meta.getMeta('contract_key'), undefined);
            await s.meta.setMeta('contract_key', 'one');
            assert.equal(await s.meta.getMeta('contract_key'), 'one');
            await s.meta.setMeta('contract_key', '');
            assert.equal(await s.meta.getMeta('contract_key'), '');
            await s.meta.setMeta('contract_key', 'three');
            assert.equal(await s.meta.getMeta('contract_key'), 'three');
            if (ctx.shared) assert.equal(await (await ctx.peer()).meta.getMeta('contract_key'), 'three', 'shared by every instance');
        });
    });

    describe('StoreHealth', () => {
        it('names its backend, is healthy with no problem, and counts stored, outbox, backlog and offloaded events', async () => {
            const s = ctx.storage();
            assert.equal(s.health.backend, s.backend);
            assert.ok(['sqlite', 'postgres'].includes(s.backend));
            assert.equal(s.health.healthy(), true);
            assert.equal(s.health.problem(), undefined);
            const empty = await s.health.stats();
            assert.deepEqual([empty.eventsStored, empty.outboxBacklog, empty.forwardBacklog, empty.offloadedPayloads], [0, 0, 0, 0]);
            await appendAll(s, [...events('h', 3, { forward: { exact: true } }), newEvent({ id: 'off', bodyKind: 'offloaded', bodyRaw: undefined, blobKey: 'payload-off', size: 2_000_000 })]);
            await s.events.importEvents([newEvent({ id: 'imp' })]);
            const stats = await s.health.stats();
            assert.deepEqual([stats.eventsStored, stats.outboxBacklog, stats.forwardBacklog, stats.offloadedPayloads], [5, 4, 3, 1]);
            assert.ok(Number.isFinite(stats.databaseBytes) && stats.databaseBytes > 0, `databaseBytes ${stats.databaseBytes}`);
            assert.ok(['full', 'normal', 'other'].includes(stats.durability));
        });

        it('queryStats is absent or counts refused, timed-out and cancelled queries; reclaimSpace answers the free pages left', async () => {
            const s = ctx.storage();
            const q = s.health.queryStats();
            if (q !== undefined) for (const k of ['refused', 'timedOut', 'cancelled'] as const) assert.ok(Number.isInteger(q[k]) && q[k] >= 0, k);
            await appendAll(s, events('v', 20));
            await s.events.deleteEvents(events('v', 20).map((e) => e.id));
            const free = await s.health.reclaimSpace(100);
            assert.ok(Number.isInteger(free) && free >= 0, `free pages ${free}`);
            assert.equal(s.health.healthy(), true);
        });
    });

    describe('close and reopen', () => {
        it('close commits appends still in flight; events, replays, meta and the outbox survive a reopen', async () => {
            const s = ctx.storage();
            await appendAll(s, events('d', 3));
            await s.meta.setMeta('contract_key', 'kept');
            const outbox = await s.outbox.readOutbox(10);
            await s.outbox.markExported(outbox[0]!.seq);
            const pending = events('late', 20).map((e) => s.events.append(e));
            await ctx.close(s);
            const settled = await Promise.allSettled(pending);
            const stored = events('late', 20).filter((_, i) => settled[i]!.status === 'fulfilled').map((e) => e.id);
            const again = await ctx.reopen();
            const ids = await listedIds(again);
            assert.deepEqual(ids.filter((id) => id.startsWith('late')).sort(), stored, 'every resolved append is stored, and only those');
            assert.ok(ids.includes('d-000') && ids.includes('d-002'));
            assert.equal(await again.meta.getMeta('contract_key'), 'kept');
            assert.deepEqual((await again.outbox.readOutbox(100)).map((o) => o.entry.id).slice(0, 2), ['d-001', 'd-002']);
        });
    });
}
