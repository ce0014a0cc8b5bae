import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { Storage } from '../../src/storage/roles.js';
import type { ContractContext } from './contract.js';
import { appendAll, events, feedOrder, listedIds, logsQuery, newEvent, T0 } from './factory.js';

/** The second writer: another instance on the same data when the backend is shared, else the same storage. */
async function secondWriter(ctx: ContractContext): Promise<Storage> {
    return ctx.shared ? ctx.peer() : ctx.storage();
}

/** Several writers and readers at once. */
export function writerCases(ctx: ContractContext): void {
    describe('writers and readers at once', () => {
        it('two writers appending at once: every event stored exactly once, in one order every reader sees, each writer in its own order', async () => {
            const a = ctx.storage();
            const b = await secondWriter(ctx);
            await a.events.append(newEvent({ id: 'anchor', timestamp: T0 - 1 }));
            const fromA = events('wa', 60);
            const fromB = events('wb', 60);
            // Each writer sends in sequence and, in bursts, several at once.
            const write = async (s: Storage, list: typeof fromA): Promise<void> => {
                await appendAll(s, list.slice(0, 30));
                await Promise.all(list.slice(30).map((e) => s.events.append(e)));
            };
            await Promise.all([write(a, fromA), write(b, fromB)]);
            const listed = await listedIds(a);
            assert.equal(listed.length, 121);
            assert.equal(new Set(listed).size, 121, 'no event twice');
            const order = await feedOrder(a, 'anchor');
            assert.deepEqual(await feedOrder(b, 'anchor'), order, 'both see one order');
            assert.equal(order.length, 121);
            assert.deepEqual(order.filter((id) => id.startsWith('wa')).slice(0, 30), fromA.slice(0, 30).map((e) => e.id), "A's sequential appends in A's order");
            assert.deepEqual(order.filter((id) => id.startsWith('wb')).slice(0, 30), fromB.slice(0, 30).map((e) => e.id), "B's sequential appends in B's order");
            const outbox = [...(await a.outbox.readOutbox(1000)), ...(ctx.shared ? await b.outbox.readOutbox(1000) : [])];
            assert.deepEqual(outbox.map((o) => o.entry.id).sort(), order.slice().sort(), 'every event waits for export once');
        });

        it('a reader that starts while a writer runs sees the committed events as a growing prefix, never with a gap', async () => {
            const w = ctx.storage();
            const r = await secondWriter(ctx);
            await w.events.append(newEvent({ id: 'start' }));
            // A first query warms the reader up (a worker, a pool), so reading keeps pace with writing.
            await r.events.query(logsQuery('limit=1'));
            const list = events('run', 150);
            let writing = true;
            const writer = (async () => {
                // Paced, so that the writer is still running while the reader reads.
                for (const [i, e] of list.slice(0, 100).entries()) {
                    await w.events.append(e);
                    if (i % 5 === 4) await new Promise((res) => setTimeout(res, 15));
                }
                await Promise.all(list.slice(100).map((e) => w.events.append(e)));
                writing = false;
            })();
            const snapshots: string[][] = [];
            let lastTotal = 0;
            // The reader begins once the writer is under way.
            while (writing || snapshots.length < 3) {
                const seen = (await r.feed.entriesAfter('start', 1000))!.map((e) => e.id);
                snapshots.push(seen);
                const total = (await r.events.query(logsQuery('limit=1'))).total ?? 0;
                assert.ok(total >= lastTotal, `the total never shrinks (${lastTotal} then ${total})`);
                lastTotal = total;
                await new Promise((res) => setTimeout(res, 5));
            }
            await writer;
            const final = (await r.feed.entriesAfter('start', 1000))!.map((e) => e.id);
            assert.deepEqual(final.slice().sort(), list.map((e) => e.id));
            assert.deepEqual(final.slice(0, 100), list.slice(0, 100).map((e) => e.id));
            for (const seen of snapshots) assert.deepEqual(seen, final.slice(0, seen.length), 'each read is a prefix of the final order');
            assert.ok(snapshots.some((s) => s.length > 0 && s.length < final.length), `the reader saw the log while it grew (${snapshots.map((s) => s.length).join(' ')})`);
        });
    });
}
