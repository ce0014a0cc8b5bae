import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import Database from 'better-sqlite3';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { planLogsQuery, runLogsQuery } from '../../src/storage/sqlite/query.js';
import { byteSlices, largeBodies, ROW_BYTES, SLICE, SLICE_BYTES } from '../../src/storage/sqlite/query/slices.js';
import { prepareReader } from '../../src/storage/sqlite/schema.js';
import type { NewEvent } from '../../src/storage/types.js';
import { storedEvent, T0 } from './seed.js';

// Issue 22: body search sliced by count (10,000 events) read every large body of the store in one
// slice. 200 bodies of 1 MB among 3,000 small ones; every 40th small body and every 7th large one
// hold the needle, a word of rare letters (LIKE skips the rest of a body fast).
const LARGE = 200;
const SMALL = 3000;
const MB = 1024 * 1024;
const AGENTS = ['zeta', 'Alpha', 'émile', '😀 bot', 'a'];
const q = (qs: string) => parseLogsQuery(new URLSearchParams(qs));

function bigBody(i: number): Buffer {
    const text = `{"i":${i},"notes":"${'lorem ipsum dolor sit amet '.repeat(Math.ceil(MB / 27))}${i % 7 === 0 ? 'QuizJazz' : ''}"}`;
    return Buffer.from(text);
}

describe('body search over large bodies is sliced by bytes (issue 22)', () => {
    let dir: string;
    let store: SqliteEventStore;
    let db: Database.Database;
    const needles = new Set<string>();
    beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'whd-large-'));
        const file = join(dir, 'events.sqlite');
        store = await SqliteEventStore.open({ file, queryWorkers: 0 });
        const every = Math.floor((LARGE + SMALL) / LARGE);
        let batch: NewEvent[] = [];
        let large = 0;
        for (let i = 0; i < LARGE + SMALL; i++) {
            const isLarge = i % every === 0 && large < LARGE;
            const raw = isLarge ? bigBody(large++) : Buffer.from(JSON.stringify({ n: i, text: i % 40 === 3 ? 'a quizjazz here' : 'hay' }));
            const id = `e${String(i).padStart(5, '0')}`;
            if ((isLarge && (large - 1) % 7 === 0) || (!isLarge && i % 40 === 3)) needles.add(id);
            batch.push(storedEvent({ id, webhookId: `wh_${i % 3}`, timestamp: T0 + (i % 500) * 1000, userAgent: AGENTS[i % AGENTS.length]!, size: raw.length, bodyKind: 'json', bodyRaw: raw }));
            if (batch.length === 50) {
                await store.importEvents(batch);
                batch = [];
            }
        }
        await store.importEvents(batch);
        db = new Database(file, { readonly: true });
        prepareReader(db);
    }, 120_000);
    afterAll(async () => {
        db.close();
        await store.close();
        await rm(dir, { recursive: true, force: true });
    });

    it('cuts a pass into slices of at most SLICE_BYTES (a large body alone when it is larger), covering every event once', () => {
        const top = db.prepare('SELECT max(seq) FROM events').pluck().get() as number;
        const sizeOf = db.prepare('SELECT seq, size FROM events');
        const sizes = new Map((sizeOf.raw().all() as [number, number][]).map(([seq, size]) => [seq, size]));
        for (const limits of [{ rows: SLICE, bytes: SLICE_BYTES }, { rows: 50, bytes: 3 * MB }, { rows: SLICE, bytes: 512 * 1024 }]) {
            let next = 0;
            let slices = 0;
            for (const [lo, hi] of byteSlices(largeBodies(db, 0, top), 0, top, limits)) {
                assert.equal(lo, next, 'slices are consecutive');
                assert.ok(hi > lo && hi - lo <= limits.rows);
                let bytes = 0;
                for (let seq = lo + 1; seq <= hi; seq++) bytes += ROW_BYTES + (sizes.get(seq)! > 2048 ? sizes.get(seq)! : 0);
                assert.ok(bytes <= limits.bytes || hi - lo === 1, `slice (${lo}, ${hi}] reads ${bytes} bytes`);
                next = hi;
                slices++;
            }
            assert.equal(next, top, 'the slices cover the pass');
            // 200 MB of bodies: by count it was one slice; by bytes at least 200 MB / the budget.
            assert.ok(slices >= (LARGE * MB) / limits.bytes, `${slices} slices for ${limits.bytes} bytes each`);
        }
    });

    it('answers body searches exactly as one unsliced pass does: pages, totals, cursors, deep offsets', () => {
        const queries = ['body=quizjazz', 'body=QUIZJAZZ&sort=size:desc&offset=5&limit=7', 'body=quizjazz&sort=remoteIp:desc,userAgent:asc&limit=3',
            'body=quizjazz&sort=userAgent:desc&offset=20000&limit=5', 'body=no-such-term&sort=userAgent:asc', 'body=hay&sort=userAgent:asc&offset=2500&limit=9',
            'body=hay&sort=webhookId:asc,userAgent:desc&offset=21000&limit=100', 'body=lorem&limit=4&sort=userAgent:asc'];
        const whole = { slice: 10_000_000, sliceBytes: Number.MAX_SAFE_INTEGER };
        for (const qs of queries) {
            const expected = runLogsQuery(db, q(qs), whole);
            for (const tuning of [{}, { slice: 37, sliceBytes: 64 * 1024 }]) {
                assert.deepEqual(runLogsQuery(db, q(qs), tuning), expected, `${qs} with ${JSON.stringify(tuning)}`);
            }
        }
        const all = runLogsQuery(db, q('body=quizjazz&limit=1000'));
        assert.equal(all.total, needles.size);
        assert.deepEqual(new Set(all.items.map((i) => i.id)), needles);
    });

    it('stops the in-order walk of a search at 32 MB of bodies (one statement, nothing can stop it), and leaves the rest to the sliced pass', () => {
        // Newest first, the walk would take in all 3,200 events and 200 MB of bodies to fill this page.
        const planned = planLogsQuery(db, q('body=quizjazz&limit=100'));
        assert.ok('pass' in planned, 'the page is left to the pass');
        // A page the first 32 MB can fill still comes from the walk.
        const common = planLogsQuery(db, q('body=hay&limit=20'));
        assert.ok('page' in common && common.page.items.length === 20);
    });

    it('pages through the matches with a cursor over byte slices, each once', () => {
        for (const sort of ['userAgent:asc', 'size:desc']) {
            const ids: string[] = [];
            let query = q(`body=quizjazz&sort=${sort}&limit=20&cursor=`);
            for (let guard = 0; guard < 200; guard++) {
                const page = runLogsQuery(db, query, { sliceBytes: MB });
                ids.push(...page.items.map((i) => i.id));
                if (!page.next) break;
                query = { ...query, cursor: page.next };
            }
            assert.equal(new Set(ids).size, ids.length, sort);
            assert.deepEqual(new Set(ids), needles, sort);
        }
    });
});
