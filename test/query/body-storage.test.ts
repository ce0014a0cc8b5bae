import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { encodeEvent } from '../../src/storage/sqlite/rows.js';
import { openWriterCore } from '../../src/storage/sqlite/writer-core.js';
import type { BodyKind } from '../../src/storage/types.js';
import { storedEvent } from './seed.js';

describe('body rows as the writer stores them', () => {
    it('keeps textual bodies as TEXT and binary ones as BLOB, byte for byte, on append and import', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-bodies-'));
        const file = join(dir, 'events.sqlite');
        const store = await SqliteEventStore.open({ file, queryWorkers: 0 });
        const bodies: [string, BodyKind, Buffer][] = [
            ['t1', 'text', Buffer.from('plain text, émile 😀 ünïcode\r\n', 'utf8')],
            ['j1', 'json', Buffer.from('{ "a" : [1, 2.50, "\\u00e9"] }\n', 'utf8')],
            ['b1', 'binary', Buffer.from([0, 1, 2, 0xff, 0xfe, 0x80, 0x22])],
            // A body that is a view into a larger buffer, as bodies read off a socket are.
            ['v1', 'text', Buffer.from('xxxxHELLOxxxx').subarray(4, 9)],
        ];
        try {
            for (const [id, kind, raw] of bodies.slice(0, 2)) await store.append(storedEvent({ id, webhookId: 'wh_a', bodyKind: kind, bodyRaw: raw, size: raw.length }));
            await store.importEvents(bodies.slice(2).map(([id, kind, raw]) => storedEvent({ id, webhookId: 'wh_a', bodyKind: kind, bodyRaw: raw, size: raw.length })));
            const db = new Database(file, { readonly: true });
            try {
                const typeOf = db.prepare('SELECT typeof(b.text) AS t, typeof(b.raw) AS r FROM events e JOIN bodies b ON b.seq = e.seq WHERE e.id = ?');
                for (const [id, kind, raw] of bodies) {
                    assert.deepEqual(typeOf.get(id), kind === 'binary' ? { t: 'null', r: 'blob' } : { t: 'text', r: 'null' }, id);
                    assert.deepEqual((await store.getBody(id)).raw, raw, `${id} comes back byte for byte`);
                }
                assert.equal(db.prepare(`SELECT count(*) FROM bodies WHERE instr(text, 'émile 😀') > 0`).pluck().get(), 1, 'text functions see the characters');
                assert.deepEqual((await store.getEntry('j1')).body, { a: [1, 2.5, 'é'] });
            } finally {
                db.close();
            }
        } finally {
            await store.close();
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('reads a body stored as JSON that does not parse as its text, rather than failing', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-bodies-'));
        const store = await SqliteEventStore.open({ file: join(dir, 'events.sqlite'), queryWorkers: 0 });
        try {
            const raw = Buffer.from('{"unterminated": ');
            await store.importEvents([storedEvent({ id: 'bad', webhookId: 'wh_a', bodyKind: 'json', bodyRaw: raw, size: raw.length })]);
            assert.equal((await store.getEntry('bad')).body, '{"unterminated": ');
            assert.deepEqual((await store.getBody('bad')).raw, raw);
        } finally {
            await store.close();
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('retries a failed group commit request by request with the records as they came', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-bodies-'));
        const file = join(dir, 'events.sqlite');
        const core = openWriterCore(file, 'normal');
        try {
            const body = Buffer.from('{"kept":"exactly"}');
            const good = encodeEvent(storedEvent({ id: 'ok1', webhookId: 'wh_a', remoteIp: '10.1.2.3', bodyKind: 'json', bodyRaw: body, size: body.length }));
            const twin = encodeEvent(storedEvent({ id: 'dup', webhookId: 'wh_a' }));
            // The second request inserts the same id twice: the group fails, then each request runs alone.
            const replies = core.commit([
                { op: 'append', batch: 1, records: [good] },
                { op: 'append', batch: 2, records: [twin, [...twin]] },
            ]);
            assert.equal(replies[0]!.error, undefined);
            assert.match(replies[1]!.error ?? '', /UNIQUE/);
            const db = new Database(file, { readonly: true });
            try {
                const row = db.prepare('SELECT b.text, e.ip_bin FROM events e JOIN bodies b ON b.seq = e.seq WHERE e.id = ?').get('ok1') as { text: string; ip_bin: Buffer };
                assert.equal(row.text, '{"kept":"exactly"}');
                assert.deepEqual([...row.ip_bin.subarray(12)], [10, 1, 2, 3]);
                assert.equal(db.prepare(`SELECT count(*) FROM events WHERE id = 'dup'`).pluck().get(), 0);
            } finally {
                db.close();
            }
        } finally {
            core.close();
            await rm(dir, { recursive: true, force: true });
        }
    });
});
