import assert from 'node:assert/strict';
import type pg from 'pg';
import { afterEach, describe, it } from 'vitest';
import { silentLogger, type Logger } from '../../src/lib/log.js';
import { PgFeed, type PgFeedOptions } from '../../src/storage/pg/feed.js';
import { pgTestsRun, usePgServer } from './aux-pg.js';
import { until } from '../helpers/until.js';

// The columns the feed reads, as in pg-core's schema (seq, id, origin); the tests write them by
// hand and send the NOTIFY a group commit sends.
// The feed reads the events_all view (storage/pg/inbox.ts); here over one table of its own.
const EVENTS_DDL = ['CREATE TABLE IF NOT EXISTS events (seq bigint PRIMARY KEY, id text NOT NULL UNIQUE, origin text)', 'CREATE OR REPLACE VIEW events_all AS SELECT * FROM events'];
const ME = 'instance-me';
const OTHER = 'instance-other';

let nextSeq = 1;
/** Commits events in one transaction, with the wake-up NOTIFY unless `notify` is false. */
async function commit(pool: pg.Pool, events: { id: string; origin: string }[], notify = true): Promise<void> {
    const client = await pool.connect();
    const first = nextSeq;
    try {
        await client.query('BEGIN');
        for (const [i, e] of events.entries()) await client.query('INSERT INTO events (seq, id, origin) VALUES ($1, $2, $3)', [first + i, e.id, e.origin]);
        if (notify) await client.query('NOTIFY whd_events');
        await client.query('COMMIT');
        nextSeq = first + events.length;
        client.release();
    } catch (error) {
        // A connection that failed mid-transaction (a killed server) is destroyed, not handed back to
        // the pool in an aborted transaction where the next commit would fail.
        client.release(error instanceof Error ? error : true);
        throw error;
    }
}

/** Waits for `done`, which these tests claim comes within `ms`; `between` runs between tries. Answers how long it took. */
async function within(what: string, done: () => boolean, ms: number, between?: () => Promise<void>): Promise<number> {
    const start = Date.now();
    await until(`${what} (within ${ms} ms)`, async () => done() || (await between?.(), false), { timeoutMs: ms, intervalMs: between ? 200 : 10 });
    return Date.now() - start;
}

describe.skipIf(!pgTestsRun)('PgFeed', () => {
    const pgx = usePgServer('own');
    const feeds: PgFeed[] = [];
    afterEach(async () => {
        await Promise.all(feeds.splice(0).map((f) => f.close()));
    });

    /** A started feed on a fresh database, and every id its listener received. */
    async function setup(options: PgFeedOptions = {}, log: Logger = silentLogger): Promise<{ pool: pg.Pool; feed: PgFeed; got: string[] }> {
        const pool = pgx.pool(await pgx.database(EVENTS_DDL));
        await commit(pool, [{ id: 'before-start', origin: OTHER }]);
        const feed = new PgFeed(pool, ME, log, options);
        feeds.push(feed);
        await feed.start();
        const got: string[] = [];
        feed.onForeignEvents((ids) => got.push(...ids));
        return { pool, feed, got };
    }

    it('hands listeners the ids other instances commit after it started, in commit order, within 1 s of the NOTIFY; its own are left out', async () => {
        // No fallback read during the test: the notification alone must wake the feed.
        const { pool, got } = await setup({ pollMs: 60_000 });
        await commit(pool, [{ id: 'a1', origin: OTHER }, { id: 'mine1', origin: ME }, { id: 'a2', origin: OTHER }]);
        const took = await within('a1, a2', () => got.length >= 2, 1000);
        await commit(pool, [{ id: 'mine2', origin: ME }]);
        await commit(pool, [{ id: 'b1', origin: 'instance-third' }, { id: 'b2', origin: OTHER }]);
        await within('b1, b2', () => got.length >= 4, 1000);
        await new Promise((r) => setTimeout(r, 200));
        assert.deepEqual(got, ['a1', 'a2', 'b1', 'b2'], `delivered in ${took} ms`);
    });

    it('reads every second without a notification (one lost while a connection was down)', async () => {
        const { pool, got } = await setup();
        await commit(pool, [{ id: 'quiet1', origin: OTHER }, { id: 'quiet2', origin: OTHER }], false);
        await within('quiet1, quiet2', () => got.length >= 2, 2500);
        assert.deepEqual(got, ['quiet1', 'quiet2']);
    });

    it('delivers a commit of 2,500 events whole and in order (reads 1,000 at a time until it has all)', async () => {
        const { pool, got } = await setup({ pollMs: 60_000 });
        const ids = Array.from({ length: 2500 }, (_, i) => `bulk${String(i).padStart(4, '0')}`);
        await commit(pool, ids.map((id) => ({ id, origin: OTHER })));
        await within('2,500 ids', () => got.length >= 2500, 5000);
        assert.deepEqual(got, ids);
    });

    it('a listener that throws neither stops the other listeners nor the feed', async () => {
        const warnings: string[] = [];
        const log: Logger = { ...silentLogger, warn: (m) => void warnings.push(m) };
        const { pool, feed, got } = await setup({ pollMs: 60_000 }, log);
        feed.onForeignEvents(() => {
            throw new Error('listener bug');
        });
        await commit(pool, [{ id: 'c1', origin: OTHER }]);
        await commit(pool, [{ id: 'c2', origin: OTHER }]);
        await within('c1, c2', () => got.length >= 2, 1000);
        assert.deepEqual(got, ['c1', 'c2']);
        assert.ok(warnings.includes('live feed: a listener failed'));
    });

    it('after the server stops and starts again, events committed after the restart are delivered by the same feed', async () => {
        const { pool, got } = await setup({ pollMs: 60_000 });
        await commit(pool, [{ id: 'd1', origin: OTHER }]);
        await within('d1', () => got.length >= 1, 1000);
        await pgx.server.pause();
        await new Promise((r) => setTimeout(r, 1500));
        await pgx.server.resume();
        // The pool's connections died with the server; the first use may fail while it notices.
        await commit(pool, [{ id: 'd2', origin: OTHER }]).catch(() => commit(pool, [{ id: 'd2', origin: OTHER }]));
        await commit(pool, [{ id: 'd3', origin: OTHER }]);
        // Backoff up to 2 s, then the read after reconnecting.
        await within('d2, d3', () => got.length >= 3, 5000);
        assert.deepEqual(got, ['d1', 'd2', 'd3']);
        // And the new connection listens: a notified commit arrives within 1 s again.
        await commit(pool, [{ id: 'd4', origin: OTHER }]);
        await within('d4', () => got.length >= 4, 1000);
        assert.deepEqual(got, ['d1', 'd2', 'd3', 'd4']);
    });

    it('hands notices of another channel to their listeners (not as events), before and after the connection is lost, and stops at unsubscribe', async () => {
        const { pool, feed, got } = await setup({ pollMs: 60_000 });
        let early = 0;
        let late = 0;
        const stopEarly = feed.onNotice('whd_test_notice', () => early++);
        // The LISTEN goes out on the feed's connection behind what it is doing: notify until heard.
        const notify = async (): Promise<void> => void (await pool.query(`SELECT pg_notify('whd_test_notice', 'x')`));
        await within('the notice', () => early > 0, 2000, notify);
        assert.deepEqual(got, [], 'a notice is no event');
        // Notices still on their way arrive before the count starts over.
        await new Promise((r) => setTimeout(r, 300));
        early = 0;
        await pgx.server.pause();
        await pgx.server.resume();
        // Another listener of the channel, added while the connection may be down.
        feed.onNotice('whd_test_notice', () => late++);
        await within('the feed back (an event reaches it)', () => got.length > 0, 8000, async () => {
            await commit(pool, [{ id: `f${nextSeq}`, origin: OTHER }]).catch(() => undefined);
        });
        // The new connection listened before it read: one notice now reaches both listeners.
        await pool.query(`SELECT pg_notify('whd_test_notice', 'y')`);
        await within('the notice after the reconnect', () => early === 1 && late === 1, 1000);
        stopEarly();
        await pool.query(`SELECT pg_notify('whd_test_notice', 'z')`);
        await within('the notice to the listener still subscribed', () => late === 2, 1000);
        assert.equal(early, 1, 'an unsubscribed listener hears nothing more');
        assert.throws(() => feed.onNotice('bad; DROP TABLE events', () => undefined), /not a channel name/);
    });

    it('after the server is killed and started again, the same feed delivers what is committed after', async () => {
        const { pool, got } = await setup({ pollMs: 60_000 });
        await pgx.server.kill();
        await new Promise((r) => setTimeout(r, 500));
        await pgx.server.resume();
        await commit(pool, [{ id: 'e1', origin: OTHER }]).catch(() => commit(pool, [{ id: 'e1', origin: OTHER }]));
        await within('e1', () => got.length >= 1, 5000);
        await commit(pool, [{ id: 'e2', origin: OTHER }]);
        await within('e2', () => got.length >= 2, 1000);
        assert.deepEqual(got, ['e1', 'e2']);
    });

    it('a connection whose server process hangs is given up after the read timeout and the feed goes on on a new one', async () => {
        const { pool, got } = await setup({ pollMs: 100, readTimeoutMs: 500 });
        await commit(pool, [{ id: 'g1', origin: OTHER }]);
        await within('g1', () => got.length >= 1, 1000);
        // The server process of the feed's connection: the one that runs the feed's read.
        const { rows } = await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'SELECT seq, id, origin FROM events_all%'`);
        assert.equal(rows.length, 1);
        const pid = rows[0]!.pid;
        process.kill(pid, 'SIGSTOP');
        try {
            await commit(pool, [{ id: 'g2', origin: OTHER }]);
            await within('g2 through a new connection', () => got.length >= 2, 5000);
        } finally {
            process.kill(pid, 'SIGCONT');
        }
        assert.deepEqual(got, ['g1', 'g2']);
    });

    it('after close, no listener is called', async () => {
        const { pool, feed, got } = await setup({ pollMs: 100 });
        await commit(pool, [{ id: 'f1', origin: OTHER }]);
        await within('f1', () => got.length >= 1, 1000);
        await feed.close();
        await commit(pool, [{ id: 'f2', origin: OTHER }]);
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(got, ['f1']);
    });
});
