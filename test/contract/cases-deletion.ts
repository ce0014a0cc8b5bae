import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import type { ContractContext } from './contract.js';
import { appendAll, events, listedIds, newEvent, outcome, replay, T0 } from './factory.js';

/** EventLog: imports, deletion and tombstones, as every read sees them. */
export function deletionCases(ctx: ContractContext): void {
    describe('EventLog imports, deletion and tombstones', () => {
        it('importEvents inserts new ids, skips existing ones and answers how many were new; imports are neither exported nor forwarded', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'live', statusCode: 200 }));
            const before = (await s.outbox.readOutbox(100)).length;
            const n = await s.events.importEvents([
                newEvent({ id: 'live', statusCode: 500 }),
                newEvent({ id: 'old-1', forward: { exact: true } }),
                newEvent({ id: 'old-2' }),
            ]);
            assert.equal(n, 2);
            assert.equal((await s.events.getEntry('live')).statusCode, 200, 'an existing event is not replaced');
            assert.equal((await s.events.getEntry('old-1')).id, 'old-1');
            assert.deepEqual((await listedIds(s)).sort(), ['live', 'old-1', 'old-2']);
            assert.equal((await s.outbox.readOutbox(100)).length, before, 'imports do not join the outbox');
            assert.deepEqual((await s.forwards.readForwardBacklog(0, 100)).map((b) => b.eventId), [], 'imports do not join the forwarding backlog');
            assert.equal(await s.events.importEvents([newEvent({ id: 'old-1' })]), 0);
            assert.equal(await s.events.importEvents([]), 0);
        });

        it('deleteEvents removes events from every read, answers the count that existed and the blob keys, and leaves tombstones that block imports', async () => {
            const s = ctx.storage();
            await appendAll(s, [
                newEvent({ id: 'keep' }),
                newEvent({ id: 'small', forward: { exact: true } }),
                newEvent({ id: 'big', bodyKind: 'offloaded', bodyRaw: undefined, blobKey: 'payload-big', size: 3_000_000, forward: { exact: false } }),
            ]);
            await s.events.recordReplay('small', replay(1));
            const statsBefore = await s.health.stats();
            const result = await s.events.deleteEvents(['small', 'big', 'never-was']);
            assert.equal(result.deleted, 2);
            assert.deepEqual(result.blobKeys, ['payload-big']);
            for (const id of ['small', 'big']) {
                await assert.rejects(s.events.getEntry(id), NotFoundError, `getEntry(${id})`);
                await assert.rejects(s.bodies.getBody(id), NotFoundError, `getBody(${id})`);
                await assert.rejects(s.outbox.getExportRecord(id), NotFoundError, `getExportRecord(${id})`);
                assert.equal(await s.events.webhookOf(id), undefined);
                assert.equal(await s.forwards.forwardSource(id), undefined);
                assert.equal(await s.feed.entriesAfter(id, 10), undefined);
            }
            assert.equal(await s.events.idAtTimestamp('wh_a', T0), 'keep');
            assert.deepEqual(await listedIds(s), ['keep']);
            assert.deepEqual((await s.outbox.readOutbox(100)).map((o) => o.entry.id), ['keep']);
            assert.deepEqual(await s.forwards.readForwardBacklog(0, 100), []);
            const stats = await s.health.stats();
            assert.equal(stats.eventsStored, statsBefore.eventsStored - 2);
            assert.equal(stats.outboxBacklog, 1);
            assert.equal(stats.forwardBacklog, 0);
            assert.equal(stats.offloadedPayloads, 0);
            // Late results of work on a deleted event do not bring it back.
            await s.events.recordReplay('small', replay(2));
            await s.forwards.recordForwards([{ eventId: 'small', outcome: outcome('delivered') }]);
            await assert.rejects(s.events.getEntry('small'), NotFoundError);
            assert.equal(await s.events.importEvents([newEvent({ id: 'small' }), newEvent({ id: 'big' }), newEvent({ id: 'never-was' })]), 1, 'only the id that never existed is imported');
            await assert.rejects(s.events.getEntry('small'), NotFoundError);
            assert.deepEqual(await s.events.deleteEvents([]), { deleted: 0, blobKeys: [] });
            assert.equal((await s.events.deleteEvents(['small'])).deleted, 0, 'deleting twice finds nothing');
        });

        it('addTombstones blocks imports of ids this storage never had', async () => {
            const s = ctx.storage();
            await s.events.addTombstones(['t-1', 't-2']);
            await s.events.addTombstones([]);
            assert.equal(await s.events.importEvents(events('t', 3, {}).map((e, i) => ({ ...e, id: `t-${i}` }))), 1);
            assert.deepEqual(await listedIds(s), ['t-0']);
            await assert.rejects(s.events.getEntry('t-1'), NotFoundError);
        });
    });
}
