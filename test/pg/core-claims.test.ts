import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { HEARTBEAT, type HeartbeatTiming } from '../../src/storage/pg/instances.js';
import { events, outcome } from '../contract/factory.js';
import { until } from '../helpers/until.js';
import { pgCoreRuns, useCoreServer } from './core-pg.js';

const ids = (list: { entry: { id: string } }[]): string[] => list.map((o) => o.entry.id);

// The heartbeat a fifth as slow as real instances' (2 s beats, dead after 10 s): the rules below
// are the same, and a test waits seconds for them instead of tens of seconds.
const QUICK: HeartbeatTiming = { everyMs: HEARTBEAT.everyMs / 5, deadAfterMs: HEARTBEAT.deadAfterMs / 5 };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!pgCoreRuns)('PostgreSQL backend: export and forwarding claimed once across instances', () => {
    const pg = useCoreServer('own');

    it('each instance exports what it captured; a stopped instance’s outbox is claimed once by the live ones', async () => {
        const url = await pg.server.createDatabase();
        const [a, b, c] = await Promise.all(['oa', 'ob', 'oc'].map((id) => pg.open(url, id)));
        await Promise.all(events('a', 20).map((e) => a!.events.append(e)));
        await Promise.all(events('b', 40).map((e) => b!.events.append(e)));
        assert.deepEqual(ids(await a!.outbox.readOutbox(100)), events('a', 20).map((e) => e.id), 'A reads only its own');
        assert.deepEqual(await c!.outbox.readOutbox(100), [], 'C captured nothing and B is alive');
        await b!.close();
        // A and C export at once, in small batches, until nothing is left.
        const exported = { a: [] as string[], c: [] as string[] };
        const drain = async (s: typeof a, into: string[]): Promise<void> => {
            for (;;) {
                const got = await s!.outbox.readOutbox(7);
                if (got.length === 0) return;
                into.push(...ids(got));
                await s!.outbox.markExported(got[got.length - 1]!.seq);
            }
        };
        await Promise.all([drain(a, exported.a), drain(c, exported.c)]);
        const ofB = [...exported.a, ...exported.c].filter((id) => id.startsWith('b-'));
        assert.deepEqual(ofB.sort(), events('b', 40).map((e) => e.id), 'every one of B’s events exported once');
        assert.ok(exported.c.length > 0, 'C took a share');
        assert.deepEqual(exported.a.filter((id) => id.startsWith('a-')), events('a', 20).map((e) => e.id), 'A’s own exported once, by A, in order');
        assert.ok(!exported.c.some((id) => id.startsWith('a-')), 'C never took a live instance’s rows');
        const [left] = await pg.sql(url, 'SELECT count(*)::int AS n FROM outbox');
        assert.equal(left?.n, 0);
    });

    it('an instance that stops beating keeps its outbox for the dead time (10 s), then another takes it over', async () => {
        assert.deepEqual(HEARTBEAT, { everyMs: 2000, deadAfterMs: 10_000 }, 'real instances beat every 2 s and are dead after 10 s');
        const url = await pg.server.createDatabase();
        const a = await pg.open(url, 'ha', { heartbeat: QUICK });
        const b = await pg.open(url, 'hb', { heartbeat: QUICK });
        await Promise.all(events('hb', 5).map((e) => b.events.append(e)));
        await b.close();
        // A has beaten for longer than the dead time: it may take over silent instances' work.
        await sleep(QUICK.deadAfterMs + 500);
        // B as a process that hangs or was killed: its rows still its own, its last beat just now.
        await pg.sql(url, `UPDATE outbox SET owner = 'hb'`);
        await pg.sql(url, `UPDATE forward_backlog SET owner = 'hb'`);
        // Read before the beat is written: the server's now() for it is no earlier, so a takeover
        // the server allows at its beat + the dead time is never before this + the dead time.
        const silentSince = Date.now();
        await pg.sql(url, `INSERT INTO instances (id, seen_at) VALUES ('hb', now())`);
        assert.deepEqual(await a.outbox.readOutbox(100), [], 'B still counts as alive');
        assert.deepEqual(await a.forwards.readForwardBacklog(0, 100), []);
        const taken = await until('A takes over B’s outbox', async () => {
            const got = ids(await a.outbox.readOutbox(100));
            return got.length > 0 && got;
        }, { timeoutMs: 25_000, intervalMs: 50 });
        assert.ok(Date.now() - silentSince >= QUICK.deadAfterMs, `not before B was silent for the dead time (${QUICK.deadAfterMs} ms)`);
        assert.deepEqual(taken, events('hb', 5).map((e) => e.id));
    }, 40_000);

    it('after the database was away, the first instance back does not take the work of the others, which beat again', async () => {
        const url = await pg.server.createDatabase();
        const a = await pg.open(url, 'ra', { heartbeat: QUICK });
        const b = await pg.open(url, 'rb', { heartbeat: QUICK });
        await Promise.all(events('rb', 5, { forward: { exact: true } }).map((e) => b.events.append(e)));
        // Both settled (beating for longer than the dead time), as instances that ran for a while.
        // These sleeps are the scenario itself: time that must pass, with nothing to wait on.
        await sleep(QUICK.deadAfterMs + 500);
        await pg.server.pause();
        // Away for longer than the dead time: every instance's last beat is old when it comes back.
        await sleep(QUICK.deadAfterMs + 1000);
        await pg.server.resume();
        await until('A is healthy again', () => a.health.healthy(), { timeoutMs: 20_000, intervalMs: 50 });
        // A reads right away and on, past the dead time, by when it has beaten long enough to claim
        // the work of silent instances again: B's rows stay B's, as B beats again.
        for (const end = Date.now() + QUICK.deadAfterMs * 1.6; Date.now() < end; ) {
            assert.deepEqual(await a.outbox.readOutbox(100), [], 'A never claims the outbox of B, which is alive');
            assert.deepEqual(await a.forwards.readForwardBacklog(0, 100), []);
            await sleep(100);
        }
        assert.deepEqual(ids(await b.outbox.readOutbox(100)), events('rb', 5).map((e) => e.id), 'B exports its own');
    }, 90_000);

    it('forwarding backlog: own captures in order; a dead instance’s ones move past the cursor and go out once', async () => {
        const url = await pg.server.createDatabase();
        const [a, b, c] = await Promise.all(['fa', 'fb', 'fc'].map((id) => pg.open(url, id)));
        const fromB = events('fb', 30, { forward: { exact: true } });
        await Promise.all(fromB.map((e) => b!.events.append(e)));
        const fromA = events('fa', 10, { forward: { exact: false } });
        for (const e of fromA) await a!.events.append(e);
        await a!.events.append(events('nf', 1)[0]!);
        const own = await a!.forwards.readForwardBacklog(0, 100);
        assert.deepEqual(own.map((i) => i.eventId), fromA.map((e) => e.id), 'A reads its own, in capture order, with exact as stored');
        assert.ok(own.every((i) => !i.exact));
        const cursor = own[own.length - 1]!.seq;
        assert.deepEqual(await a!.forwards.readForwardBacklog(cursor, 100), []);
        await b!.close();
        // A's forwarder reads on from its cursor (reads look for dead instances' captures at most
        // once a second): B's captures come after it, in capture order.
        const toA = await until('A takes B’s captures', async () => {
            const got = await a!.forwards.readForwardBacklog(cursor, 100);
            return got.length > 0 && got;
        });
        assert.deepEqual(toA.map((i) => i.eventId), fromB.map((e) => e.id), 'every capture of B, in capture order');
        assert.ok(toA.every((i) => i.exact && i.seq > cursor), 'past the cursor, exact as stored');
        assert.deepEqual(await c!.forwards.readForwardBacklog(0, 100), [], 'claimed once: C gets none of them');
        await a!.forwards.recordForwards(toA.map((i) => ({ eventId: i.eventId, outcome: outcome('delivered') })));
        assert.equal((await a!.health.stats()).forwardBacklog, fromA.length, 'only A’s own are left');
        assert.equal((await a!.events.getEntry('fb-007')).forward?.status, 'delivered');
    });
});
