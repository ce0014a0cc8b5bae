import assert from 'node:assert/strict';
import pg from 'pg';
import { describe, it } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage } from '../../src/storage/pg/index.js';
import { keySignature } from '../../src/storage/pg/body-keys.js';
import { LOCKS } from '../../src/storage/pg/keys.js';
import type { Storage } from '../../src/storage/roles.js';
import { appendAll, events, feedOrder, listedIds, logsQuery, newEvent, T0 } from '../contract/factory.js';
import { pgCoreRuns, useCoreServer, type CoreFixture } from './core-pg.js';
import { until } from '../helpers/until.js';

// The inbox (src/storage/pg/inbox.ts): group commits land in an unindexed inbox and a mover carries
// the rows to the indexed tables after the answer; reads see each event once wherever it is.

/** Runs `fn` with a session of its own on `url`, which the test uses to hold the inbox lock: the mover only tries it, so it stays out. */
async function withHolder(url: string, fn: (holder: pg.Client) => Promise<void>): Promise<void> {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
        await fn(holder);
    } finally {
        await holder.end();
    }
}

const inboxCount = async (pg_: CoreFixture, url: string): Promise<number> => Number((await pg_.sql(url, 'SELECT count(*)::int AS n FROM events_inbox'))[0]!.n);

/** Everything the roles answer about `ids`: listings, filters, entries, bodies, the feed and the export. */
async function answers(s: Storage, ids: string[]): Promise<unknown> {
    const listed = await listedIds(s);
    const filtered = {
        body: await listedIds(s, 'body=e-01'),
        url: await listedIds(s, 'requestUrl=n%3De-02'),
        status: await listedIds(s, 'statusCode=201&sort=size'),
        // Positions from the URL index alone, then the rows read by id (query/plan.ts coveredWalk).
        address: await listedIds(s, 'remoteIp=10.9.0.0/16&sort=requestUrl:desc'),
        cursor: (await s.events.query(logsQuery('limit=7&cursor=&sort=timestamp'))).items.map((i) => i.id),
    };
    const entries = await Promise.all(ids.map(async (id) => ({ entry: await s.events.getEntry(id), body: (await s.bodies.getBody(id)).raw?.toString('utf8') })));
    return { listed, filtered, entries, feed: await feedOrder(s, ids[0]!), outbox: (await s.outbox.readOutbox(1000)).map((o) => o.entry.id), stats: (await s.health.stats()).eventsStored };
}

describe.runIf(pgCoreRuns)('PostgreSQL backend: the inbox', () => {
    const pg_ = useCoreServer('shared');

    it('commits land in the inbox, the mover carries them to the indexed tables, and every read answers the same before and after', async () => {
        const url = await pg_.server.createDatabase();
        await withHolder(url, async (holder) => {
            const s = await pg_.open(url, 'in1');
            const list = events('e', 40, {}, T0)
                .map((e, i) => (i % 3 === 0 ? { ...e, statusCode: 201, size: 100 + (i % 7) } : e))
                .map((e, i) => (i % 4 === 0 ? { ...e, remoteIp: `10.9.0.${i}` } : e));
            const ids = list.map((e) => e.id);
            // Half carried already, half kept in the inbox: every answer merges the two.
            await appendAll(s, list.slice(0, 15));
            await until('the first events to be carried', async () => ((await inboxCount(pg_, url)) === 0 ? true : undefined), 5000);
            await holder.query('SELECT pg_advisory_lock($1)', [LOCKS.inbox]);
            await appendAll(s, list.slice(15));
            assert.equal(await inboxCount(pg_, url), 25, 'every later commit waits in the inbox while the mover is kept out');
            assert.equal((await s.health.stats()).unindexed, 25);
            const before = await answers(s, ids);
            const { filtered } = before as { filtered: { body: string[]; url: string[]; address: string[] } };
            assert.deepEqual(filtered.body, ids.slice(10, 20).reverse(), 'a body filter finds matches in both tables, newest first');
            assert.deepEqual(filtered.url, ids.slice(20, 30).reverse());
            assert.deepEqual(filtered.address, ids.filter((_, i) => i % 4 === 0).reverse(), 'an address block by URL descending finds matches in both tables');
            await holder.query('SELECT pg_advisory_unlock($1)', [LOCKS.inbox]);
            await until('the inbox to empty', async () => ((await inboxCount(pg_, url)) === 0 ? true : undefined), 5000);
            const [moved] = await pg_.sql(url, 'SELECT (SELECT count(*)::int FROM events) AS events, (SELECT count(*)::int FROM bodies) AS bodies, (SELECT count(*)::int FROM bodies_inbox) AS waiting');
            assert.deepEqual(moved, { events: 40, bodies: 40, waiting: 0 }, 'events and bodies moved together');
            // Each body's keys and their signature, written by the group commit and carried with the row.
            const signed = await pg_.sql(url, 'SELECT body_keys, body_sig FROM events');
            for (const row of signed) {
                const keys = (row.body_keys as string[]).map(Number);
                assert.ok(keys.length > 0);
                assert.equal(String(row.body_sig), String(keySignature(keys)));
            }
            assert.equal((await s.health.stats()).unindexed, 0);
            assert.deepEqual(await answers(s, ids), before);
            assert.equal((before as { listed: string[] }).listed.length, 40);
        });
    });

    /** Keeps 200 appends in flight for `ms` (commits crowded all along); what the inbox looked like at the end. */
    async function crowd(s: Storage, prefix: string, ms: number): Promise<{ stored: number; carried: number; seconds: number; sent: number }> {
        const start = Date.now();
        let sent = 0;
        const lane = async (): Promise<void> => {
            while (Date.now() - start < ms) await s.events.append(newEvent({ id: `${prefix}-${sent++}`, timestamp: T0 + sent }));
        };
        await Promise.all(Array.from({ length: 200 }, lane));
        const seconds = (Date.now() - start) / 1000;
        const { eventsStored, unindexed } = await s.health.stats();
        process.stderr.write(`${prefix}: ${eventsStored} stored, ${eventsStored - (unindexed ?? 0)} carried in ${seconds.toFixed(1)} s\n`);
        return { stored: eventsStored, carried: eventsStored - (unindexed ?? 0), seconds, sent };
    }

    it('while commits are crowded the mover carries only a trickle, and the inbox is carried once the crowd is gone', async () => {
        const url = await pg_.server.createDatabase();
        // A cap out of reach (this server takes ~20,000 appends a second): the trickle alone is at work.
        const s = await openPgStorage({ url, instanceId: 'in2', log: silentLogger, inboxCap: 10_000_000 });
        try {
            const { stored, carried, seconds, sent } = await crowd(s, 'f', 2500);
            // 200 a second (one batch before the first crowded commit at most).
            assert.ok(carried <= 1000 + 200 * (seconds + 1), `carried ${carried} of ${stored} in ${seconds.toFixed(1)} s of crowded commits`);
            assert.ok(stored - carried > 0, 'captures wait in the inbox');
            await until('the inbox to empty after the crowd', async () => ((await s.health.stats()).unindexed === 0 ? true : undefined), 30_000);
            assert.equal((await s.health.stats()).eventsStored, sent);
            assert.equal((await listedIds(s)).length, sent, 'every capture listed once');
        } finally {
            await s.close();
        }
    });

    it('past its cap the inbox is carried at full speed even while commits stay crowded', async () => {
        const url = await pg_.server.createDatabase();
        const s = await openPgStorage({ url, instanceId: 'in4', log: silentLogger, inboxCap: 300 });
        try {
            const { stored, carried, seconds } = await crowd(s, 'c', 2500);
            assert.ok(carried > 1000 + 200 * (seconds + 1), `carried ${carried} of ${stored} in ${seconds.toFixed(1)} s: more than a trickle`);
        } finally {
            await s.close();
        }
    });

    it('carries large bodies a few at a time (at most 8 MB of bodies per statement), every byte intact', async () => {
        const url = await pg_.server.createDatabase();
        await withHolder(url, async (holder) => {
            const s = await pg_.open(url, 'in5');
            await holder.query('SELECT pg_advisory_lock($1)', [LOCKS.inbox]);
            // 12 JSON bodies of 2 MB each, inline (under the 5 MB offload threshold): 24 MB in the inbox.
            const big = (i: number): Buffer => Buffer.from(JSON.stringify({ i, pad: `${i}`.repeat(2 * 1024 * 1024) }).slice(0, 2 * 1024 * 1024 - 2) + '"}');
            const list = Array.from({ length: 12 }, (_, i) => newEvent({ id: `big-${i}`, timestamp: T0 + i, bodyRaw: big(i), size: 2 * 1024 * 1024 }));
            await appendAll(s, list);
            await holder.query('SELECT pg_advisory_unlock($1)', [LOCKS.inbox]);
            const seen = new Set<number>();
            await until('the inbox to empty', async () => {
                const n = await inboxCount(pg_, url);
                seen.add(n);
                return n === 0 ? true : undefined;
            }, 60_000);
            const between = [...seen].filter((n) => n > 0 && n < 12);
            assert.ok(between.length > 0, `the inbox went down in steps (seen ${[...seen].join(', ')})`);
            for (const e of list) assert.ok((await s.bodies.getBody(e.id)).raw?.equals(e.bodyRaw as Buffer), `${e.id} reads back byte-exact`);
        });
    }, 90_000);

    it('a row the indexed tables refuse holds back only itself and what follows it: the batch is tried smaller until the rows before it go', async () => {
        const url = await pg_.server.createDatabase();
        const s = await pg_.open(url, 'in6');
        // The outside world refusing one row: a trigger that fails its insert into events.
        await pg_.sql(url, `CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
            IF NEW.id = 'p-010' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
        await pg_.sql(url, 'CREATE TRIGGER refuse_poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_poison()');
        const list = events('p', 20);
        await Promise.all(list.map((e) => s.events.append(e)));
        await until('the 10 rows before the refused one to be carried', async () => ((await pg_.sql(url, 'SELECT count(*)::int AS n FROM events'))[0]!.n === 10 ? true : undefined), 20_000);
        const waiting = await pg_.sql(url, 'SELECT id FROM events_inbox ORDER BY seq');
        assert.deepEqual(waiting.map((r) => r.id), list.slice(10).map((e) => e.id), 'the refused row and those after it wait in the inbox');
        assert.equal((await listedIds(s)).length, 20, 'reads still see all 20');
        await pg_.sql(url, 'DROP TRIGGER refuse_poison ON events');
        await until('the rest to be carried once the row is accepted', async () => ((await inboxCount(pg_, url)) === 0 ? true : undefined), 10_000);
    });

    it('deletions while the mover carries rows leave no deleted event behind and every other one once', async () => {
        const url = await pg_.server.createDatabase();
        const s = await pg_.open(url, 'in3');
        const list = events('d', 3000);
        const doomed: string[] = [];
        const deletions: Promise<unknown>[] = [];
        for (let i = 0; i < list.length; i += 100) {
            await Promise.all(list.slice(i, i + 100).map((e) => s.events.append(e)));
            // Every third event of the batch committed before this one: in the inbox or being carried.
            const ids = list.slice(Math.max(0, i - 100), i).filter((_, k) => k % 3 === 0).map((e) => e.id);
            doomed.push(...ids);
            deletions.push(s.events.deleteEvents(ids));
        }
        await Promise.all(deletions);
        await until('the inbox to empty', async () => ((await inboxCount(pg_, url)) === 0 ? true : undefined), 10_000);
        const gone = new Set(doomed);
        const rows = await pg_.sql(url, 'SELECT id FROM events_all ORDER BY seq');
        assert.deepEqual(rows.map((r) => r.id), list.map((e) => e.id).filter((id) => !gone.has(id)));
        const [orphans] = await pg_.sql(url, 'SELECT count(*)::int AS n FROM bodies_all b WHERE NOT EXISTS (SELECT 1 FROM events_all e WHERE e.seq = b.seq)');
        assert.equal(orphans?.n, 0, 'no body outlives its event');
    });
});
