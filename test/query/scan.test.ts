import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import Database from 'better-sqlite3';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { runLogsQuery } from '../../src/storage/sqlite/query.js';
import { compareKeys } from '../../src/storage/sqlite/query/merge.js';
import { prepareReader } from '../../src/storage/sqlite/schema.js';
import type { NewEvent } from '../../src/storage/types.js';
import { storedEvent, T0 } from './seed.js';

const AGENTS = ['zeta', 'Alpha', 'alpha', 'émile', '😀 bot', '\uFFFD', 'a'];
const IPS = ['10.0.0.2', '10.0.0.10', '2001:db8::1', '', '192.168.0.1'];

describe('full passes in slices', () => {
    let dir: string;
    let store: SqliteEventStore;
    let db: Database.Database;
    const events: NewEvent[] = [];
    beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'whd-scan-'));
        const file = join(dir, 'events.sqlite');
        store = await SqliteEventStore.open({ file, queryWorkers: 0 });
        for (let i = 0; i < 2000; i++) {
            const e = storedEvent({
                id: `s${String((i * 7919) % 2000).padStart(4, '0')}`, webhookId: `wh_${i % 3}`, timestamp: T0 + (i % 300) * 1000, method: ['POST', 'GET'][i % 2]!,
                statusCode: [200, 404, 500][i % 3]!, size: i % 17, userAgent: AGENTS[i % AGENTS.length]!, remoteIp: IPS[i % IPS.length]!,
                bodyKind: 'json', bodyRaw: Buffer.from(JSON.stringify({ kind: i % 97 === 3 ? 'rare' : 'plain', n: i })),
            });
            if (i % 4 === 1) e.signatureProvider = i % 8 === 1 ? 'stripe' : 'github';
            events.push(e);
        }
        await store.importEvents(events);
        db = new Database(file, { readonly: true });
        prepareReader(db);
    });
    afterAll(async () => {
        db.close();
        await store.close();
        await rm(dir, { recursive: true, force: true });
    });

    it('gives the same pages and totals in slices of 97 as in one piece', () => {
        const queries = ['body=rare', 'body=rare&sort=userAgent:asc', 'body=rare&sort=remoteIp:desc,size:asc', 'body=rare&sort=signatureProvider:asc&offset=3&limit=5',
            'body=PLAIN&sort=method:asc&limit=7&offset=40', 'body[kind]=rare&sort=userAgent:desc&limit=4', 'userAgent=a&limit=3', 'method=GET&limit=2',
            'headers=%7B%7D&limit=5', 'body=rare&webhookId=wh_1&sort=size:desc'];
        for (const qs of queries) {
            const q = parseLogsQuery(new URLSearchParams(qs));
            const whole = runLogsQuery(db, q, { slice: 1_000_000 });
            const sliced = runLogsQuery(db, q, { slice: 97 });
            assert.deepEqual(sliced, whole, qs);
            assert.ok(whole.items.length > 0, `${qs} finds something`);
        }
        assert.equal(runLogsQuery(db, parseLogsQuery(new URLSearchParams('body=rare'))).total, events.filter((_, i) => i % 97 === 3).length);
    });

    it('pages through a full pass with a cursor, slice by slice, each event once', () => {
        for (const sort of ['userAgent:asc', 'remoteIp:desc', 'signatureProvider:desc,size:asc']) {
            const ids: string[] = [];
            let cursor: string | undefined;
            let q = parseLogsQuery(new URLSearchParams(`body=rare&sort=${sort}&limit=3&cursor=`));
            for (let guard = 0; guard < 100; guard++) {
                const page = runLogsQuery(db, q, { slice: 61 });
                ids.push(...page.items.map((i) => i.id));
                if (!page.next) break;
                q = { ...q, cursor: page.next };
                cursor = page.next.id;
            }
            assert.ok(cursor, 'more than one page');
            assert.equal(new Set(ids).size, ids.length);
            assert.equal(ids.length, events.filter((_, i) => i % 97 === 3).length, sort);
        }
    });

    it('merges text in SQLite byte order, NULL first', () => {
        assert.ok(compareKeys('Z', 'a') < 0);
        assert.ok(compareKeys('\uFFFD', '😀') < 0, 'U+FFFD sorts before an astral code point, as in UTF-8');
        assert.ok(compareKeys('ab', 'abc') < 0);
        assert.equal(compareKeys('é', 'é'), 0);
        assert.ok(compareKeys(null, 0) < 0);
        assert.ok(compareKeys(Buffer.from([1, 2]), Buffer.from([1, 3])) < 0);
        assert.ok(compareKeys(5, 10) < 0);
    });
});
