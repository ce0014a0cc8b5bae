import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { events, newEvent } from '../contract/factory.js';
import { startPgServer } from '../helpers/pg-server.js';
import { pgCoreRuns, useCoreServer } from './core-pg.js';
import { until } from '../helpers/until.js';

const unavailable = (error: unknown): boolean => {
    assert.ok(error instanceof StoreUnavailableError, `StoreUnavailableError, got ${String(error)}`);
    assert.equal(error.status, 503);
    assert.ok(error.headers['Retry-After']);
    return true;
};

describe.skipIf(!pgCoreRuns)('PostgreSQL backend: the database away and back', () => {
    const pg = useCoreServer('own');

    it('while the database is stopped every role rejects with StoreUnavailableError and health says why; started again, the same store works without reopening', async () => {
        const url = await pg.server.createDatabase();
        const s = await pg.open(url, 'p1');
        await s.events.append(newEvent({ id: 'before' }));
        assert.equal(s.health.healthy(), true);
        await pg.server.pause();
        try {
            await assert.rejects(s.events.append(newEvent({ id: 'during' })), unavailable);
            await assert.rejects(s.events.getEntry('before'), unavailable);
            await assert.rejects(s.bodies.getBody('before'), unavailable);
            await assert.rejects(s.outbox.readOutbox(10), unavailable);
            await assert.rejects(s.forwards.readForwardBacklog(0, 10), unavailable);
            await assert.rejects(s.meta.getMeta('schema_version'), unavailable);
            await assert.rejects(s.health.stats(), unavailable);
            await assert.rejects(s.events.deleteEvents(['before']), unavailable);
            assert.equal(s.health.healthy(), false);
            assert.match(s.health.problem() ?? '', /PostgreSQL unreachable/);
            // The probe keeps failing without crashing anything.
            await new Promise((r) => setTimeout(r, 1500));
            assert.equal(s.health.healthy(), false);
        } finally {
            await pg.server.resume();
        }
        await until('the probe sees the database again', () => s.health.healthy(), { timeoutMs: 10_000, intervalMs: 50 });
        assert.equal(s.health.problem(), undefined);
        await s.events.append(newEvent({ id: 'after' }));
        assert.equal((await s.events.getEntry('after')).id, 'after');
        await assert.rejects(s.events.getEntry('during'), /not found/, 'the refused append stored nothing');
    }, 60_000);

    it('regression: /ready trailed recovery by up to the 1 s probe; the first capture committed after the database is back marks it reachable at once', async () => {
        const url = await pg.server.createDatabase();
        // The probe all but off: only calls tell the store's health here.
        const s = await pg.open(url, 'r1', { probeMs: 3_600_000 });
        await s.events.append(newEvent({ id: 'r-before' }));
        await pg.server.pause();
        try {
            await assert.rejects(s.events.append(newEvent({ id: 'r-during' })), unavailable);
            assert.equal(s.health.healthy(), false);
        } finally {
            await pg.server.resume();
        }
        // A connection the stop left behind may fail one more append; the first that commits decides.
        for (let i = 0; ; i++) {
            try {
                await s.events.append(newEvent({ id: `r-after-${i}` }));
                break;
            } catch (error) {
                unavailable(error);
                assert.equal(s.health.healthy(), false);
                if (i > 20) throw error;
            }
        }
        assert.equal(s.health.healthy(), true, 'healthy as the capture is acknowledged, with no probe in between');
        assert.equal(s.health.problem(), undefined);
    }, 60_000);

    it('a server killed under 16 concurrent senders: every acknowledged append survives, each refused one with StoreUnavailableError, none half-way; recovery by itself', async () => {
        // fsync and synchronous commit on: an acknowledged commit is on disk before the answer.
        const server = await startPgServer();
        try {
            const url = await server.createDatabase();
            const s = await pg.open(url, 'k1');
            const acknowledged: string[] = [];
            let refused = 0;
            let n = 0;
            const sender = async (): Promise<void> => {
                for (;;) {
                    const id = `k-${n++}`;
                    try {
                        await s.events.append(newEvent({ id }));
                        acknowledged.push(id);
                    } catch (error) {
                        unavailable(error);
                        refused++;
                        return;
                    }
                }
            };
            const senders = Array.from({ length: 16 }, sender);
            await until('some appends are acknowledged', () => acknowledged.length >= 200, { timeoutMs: 30_000, intervalMs: 50 });
            await server.kill();
            await Promise.all(senders);
            assert.equal(refused, 16, 'each sender was refused once the server was gone');
            await server.resume();
            await until('healthy again', () => s.health.healthy(), { timeoutMs: 20_000, intervalMs: 50 });
            const stored = new Set((await pg.sql(url, 'SELECT id FROM events_all')).map((r) => r.id as string));
            assert.deepEqual(acknowledged.filter((id) => !stored.has(id)), [], `every acknowledged append survived (${acknowledged.length})`);
            // A group is one transaction: each stored event has its body and outbox row (a refused one may
            // be stored only when the connection died during COMMIT itself: at least once).
            const [bodies] = await pg.sql(url, 'SELECT count(*)::int AS n FROM bodies_all');
            const [outbox] = await pg.sql(url, 'SELECT count(*)::int AS n FROM outbox');
            assert.equal(bodies?.n, stored.size, 'a body for each stored event');
            assert.equal(outbox?.n, stored.size, 'an outbox row for each stored event');
            await s.events.append(newEvent({ id: 'k-after' }));
            assert.equal((await s.events.getEntry('k-after')).id, 'k-after');
        } finally {
            await server.stop();
        }
    }, 90_000);
});
