import assert from 'node:assert/strict';
import pg_ from 'pg';
import { describe, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage } from '../../src/storage/pg/index.js';
import { LOCKS } from '../../src/storage/pg/keys.js';
import { SCHEMA_VERSION } from '../../src/storage/pg/schema.js';
import { events, feedOrder, newEvent, T0 } from '../contract/factory.js';
import { pgCoreRuns, useCoreServer } from './core-pg.js';

describe.skipIf(!pgCoreRuns)('PostgreSQL backend: migration and group commit', () => {
    const pg = useCoreServer('shared');

    it('three instances opening a fresh database at once all migrate it and work', async () => {
        const url = await pg.server.createDatabase();
        const stores = await Promise.all(['m1', 'm2', 'm3'].map((id) => pg.open(url, id)));
        await Promise.all(stores.map((s, i) => s.events.append(newEvent({ id: `m-${i}` }))));
        for (const s of stores) assert.deepEqual((await s.events.getEntry('m-2')).id, 'm-2');
        const [version] = await pg.sql(url, `SELECT value FROM meta WHERE key = 'schema_version'`);
        assert.equal(version?.value, String(SCHEMA_VERSION));
        const [trgm] = await pg.sql(url, `SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`);
        assert.equal(trgm?.n, 1, 'pg_trgm is installed');
        // A later start finds everything in place.
        const again = await pg.open(url, 'm4');
        assert.equal((await again.health.stats()).eventsStored, 3);
    });

    it('concurrent appends commit in groups, and position order is commit order', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'g1');
        await s.events.append(newEvent({ id: 'first', timestamp: T0 - 1 }));
        const [before] = await pg.sql(url, 'SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = current_database()');
        const list = events('g', 300);
        await Promise.all(list.map((e) => s.events.append(e)));
        const [after] = await pg.sql(url, 'SELECT xact_commit::int AS n FROM pg_stat_database WHERE datname = current_database()');
        const commits = Number(after?.n) - Number(before?.n);
        // 300 appends in far fewer transactions (the probe and the heartbeat commit too).
        assert.ok(commits < 100, `300 appends took ${commits} commits`);
        const order = await feedOrder(s, 'first');
        assert.deepEqual(order.slice(1), list.map((e) => e.id), 'appends made in one turn are stored in call order');
        const seqs = await pg.sql(url, 'SELECT seq::int AS seq FROM events_all ORDER BY seq');
        assert.deepEqual(seqs.map((r) => r.seq), Array.from({ length: 301 }, (_, i) => i + 1), 'positions without gaps');
    });

    it('two instances appending at once: a reader tailing by position misses nothing and sees every event once', async () => {
        const url = await pg.server.createDatabase();
        const a = await pg.open(url, 'ta');
        const b = await pg.open(url, 'tb');
        const reader = await pg.open(url, 'tr');
        await a.events.append(newEvent({ id: 'anchor', timestamp: T0 - 1 }));
        const fromA = events('ta', 400);
        const fromB = events('tb', 400);
        let writing = true;
        const writers = Promise.all([
            (async () => {
                for (let i = 0; i < fromA.length; i += 20) await Promise.all(fromA.slice(i, i + 20).map((e) => a.events.append(e)));
            })(),
            (async () => {
                for (let i = 0; i < fromB.length; i += 20) await Promise.all(fromB.slice(i, i + 20).map((e) => b.events.append(e)));
            })(),
        ]).finally(() => (writing = false));
        // The tail a live stream does: always from the last id seen, never re-reading.
        const seen = ['anchor'];
        while (writing || seen.length < 801) {
            const next = await reader.feed.entriesAfter(seen[seen.length - 1]!, 50);
            assert.ok(next);
            seen.push(...next.map((e) => e.id));
            if (!writing && next.length === 0) break;
        }
        await writers;
        assert.equal(seen.length, 801, 'every event once');
        assert.equal(new Set(seen).size, 801);
        assert.deepEqual(seen, await feedOrder(reader, 'anchor'), 'the tail saw the final order');
        const origins = await pg.sql(url, `SELECT origin, count(*)::int AS n FROM events_all GROUP BY origin ORDER BY origin`);
        assert.deepEqual(origins, [{ origin: 'ta', n: 401 }, { origin: 'tb', n: 400 }]);
    });

    it('close answers every pending append before it ends the pool', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'c1');
        const list = events('c', 200);
        const appends = list.map((e) => s.events.append(e));
        await s.close();
        const results = await Promise.allSettled(appends);
        assert.deepEqual(results.filter((r) => r.status === 'rejected'), []);
        const [count] = await pg.sql(url, 'SELECT count(*)::int AS n FROM events_all');
        assert.equal(count?.n, 200);
        await assert.rejects(s.events.append(newEvent({ id: 'late' })), /closed/);
        const [instance] = await pg.sql(url, `SELECT count(*)::int AS n FROM instances WHERE id = 'c1'`);
        assert.equal(instance?.n, 0, 'a closed instance leaves at once, so others take over its work');
    });

    it('appends and the heartbeat do not wait for the main pool: with every query connection stuck, captures still commit', async () => {
        const url = await pg.server.createDatabase();
        const s = await openPgStorage({ url, instanceId: 'w1', log: silentLogger, poolSize: 1 });
        const blocker = new pg_.Client({ connectionString: url });
        await blocker.connect();
        try {
            // Another session holds a row lock; a meta write waits on it, holding the only query connection.
            await blocker.query('BEGIN');
            await blocker.query(`SELECT * FROM meta WHERE key = 'schema_version' FOR UPDATE`);
            const stuck = s.meta.setMeta('schema_version', '1');
            await new Promise((r) => setTimeout(r, 200));
            const started = Date.now();
            await Promise.all(events('w', 20).map((e) => s.events.append(e)));
            assert.ok(Date.now() - started < 5000, 'appends committed while the query pool was held');
            // The heartbeat goes on too (else other instances would take this one's work after 10 s).
            await new Promise((r) => setTimeout(r, 2500));
            const [beat] = await pg.sql(url, `SELECT seen_at > now() - interval '2400 milliseconds' AS fresh FROM instances WHERE id = 'w1'`);
            assert.equal(beat?.fresh, true, 'the instance beat while the query pool was held');
            assert.equal(s.health.healthy(), true);
            await blocker.query('COMMIT');
            await stuck;
            assert.equal((await s.events.getEntry('w-019')).id, 'w-019');
        } finally {
            await blocker.end();
            await s.close();
        }
    });

    it('a text body holding U+0000 (which a PostgreSQL text value cannot hold) is stored and read back exactly', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'z1');
        const raw = Buffer.from('before\u0000after é', 'utf8');
        await s.events.append(newEvent({ id: 'nul', bodyKind: 'text', contentType: 'text/plain', bodyRaw: raw, size: raw.length }));
        assert.equal((await s.events.getEntry('nul')).body, 'before\u0000after é');
        assert.deepEqual((await s.bodies.getBody('nul')).raw, raw);
        const [item] = await s.outbox.readOutbox(1);
        assert.equal(item?.entry.body, 'before\u0000after é');
    });

    it('an id appended while the mover carries the same id out of the inbox is refused, not stored twice', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'd2');
        // A move held open: the mover's lock first (the store's own mover then waits its turn), then the
        // row's delete from the inbox and insert into events, uncommitted.
        const mover = new pg_.Client({ connectionString: url });
        await mover.connect();
        try {
            await mover.query('BEGIN');
            await mover.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.inbox]);
            await s.events.append(newEvent({ id: 'moving' }));
            const moved = await mover.query(`WITH m AS (DELETE FROM events_inbox WHERE id = 'moving' RETURNING *) INSERT INTO events SELECT * FROM m`);
            assert.equal(moved.rowCount, 1, 'the row was in the inbox, carried by the held move');
            const again = s.events.append(newEvent({ id: 'moving' })).then(() => 'stored', (error: unknown) => error);
            // The append meets the row being carried and waits for the move.
            await new Promise((r) => setTimeout(r, 300));
            await mover.query('COMMIT');
            assert.notEqual(await again, 'stored');
            const { rows } = await mover.query(`SELECT count(*)::int AS n FROM events_all WHERE id = 'moving'`);
            assert.equal(rows[0].n, 1);
        } finally {
            await mover.end();
        }
    });

    it('a bad event in a group fails alone; its neighbours are stored', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'd1');
        await s.events.append(newEvent({ id: 'dup' }));
        const results = await Promise.allSettled([newEvent({ id: 'n1' }), newEvent({ id: 'dup' }), newEvent({ id: 'n2' })].map((e) => s.events.append(e)));
        assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
        assert.equal((await s.events.getEntry('n2')).id, 'n2');
    });
});
