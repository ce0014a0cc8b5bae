import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ipToBytes } from '../../src/lib/ip.js';
import { encodeEvent } from '../../src/storage/rows.js';
import { bodyKeys, keyColumns } from '../../src/storage/pg/body-keys.js';
import { queryInUrl } from '../../src/storage/pg/query-in-url.js';
import { migrate } from '../../src/storage/pg/schema.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { prepareReader } from '../../src/storage/sqlite/schema.js';
import type { NewEvent } from '../../src/storage/types.js';
import { pgServerFor, pgTestsCanRun, type PgServer, type PgServerKind } from '../helpers/pg-server.js';

/** Whether the PostgreSQL query tests can run; without the package they skip loudly, and fail in CI. */
export const pgQueryTestsRun = pgTestsCanRun('the PostgreSQL query tests');

const COLUMNS = ['seq', 'id', 'webhook_id', 'ts', 'method', 'status_code', 'size', 'processing_time', 'request_id', 'request_url', 'content_type', 'remote_ip',
    'user_agent', 'headers', 'query', 'response_headers', 'response_body', 'signature_valid', 'signature_provider', 'signature_error', 'body_kind', 'blob_key', 'meta', 'ip_bin', 'body_keys', 'body_sig', 'query_plain'];

/**
 * Inserts events as the SQLite backend encodes them (rows.ts encodeEvent: the same JSON text, the
 * same 16-byte address), positions from events_seq, in order; textual bodies as text, binary as bytes,
 * with the keys the PostgreSQL backend writes (body-keys.ts).
 */
export async function insertEvents(pool: pg.Pool, events: readonly NewEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += 200) {
        const batch = events.slice(start, start + 200);
        const { rows } = await pool.query<{ seq: string }>('SELECT nextval(\'events_seq\') AS seq FROM generate_series(1, $1)', [batch.length]);
        const eventValues: unknown[] = [];
        const bodyValues: unknown[] = [];
        batch.forEach((e, i) => {
            const r = encodeEvent(e);
            const seq = rows[i]!.seq;
            eventValues.push(seq, ...r.slice(0, 16), r[16] === null ? null : r[16] === 1, ...r.slice(17, 22), ipToBytes(r[10]), ...keyColumns(bodyKeys(r[19], r[22])), queryInUrl(r[8], r[13]));
            const body = r[22];
            if (body) bodyValues.push(seq, e.bodyKind === 'binary' ? null : Buffer.from(body).toString('utf8'), e.bodyKind === 'binary' ? Buffer.from(body) : null);
        });
        await pool.query(`INSERT INTO events (${COLUMNS.join(', ')}) VALUES ${placeholders(batch.length, COLUMNS.length)}`, eventValues);
        if (bodyValues.length) await pool.query(`INSERT INTO bodies (seq, text, raw) VALUES ${placeholders(bodyValues.length / 3, 3)}`, bodyValues);
    }
}

const placeholders = (rows: number, columns: number): string =>
    Array.from({ length: rows }, (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`).join(', ');

/** Deletes events from PostgreSQL as the backend does for the queries: rows gone, and meta 'events_epoch' bumped. */
export async function deleteEvents(pool: pg.Pool, ids: readonly string[]): Promise<void> {
    await pool.query('DELETE FROM bodies WHERE seq IN (SELECT seq FROM events WHERE id = ANY($1))', [ids]);
    await pool.query('DELETE FROM events WHERE id = ANY($1)', [ids]);
    await pool.query(`INSERT INTO meta (key, value) VALUES ('events_epoch', '1') ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text`);
}

/** The same events in a SQLite store (read through a read-only connection) and in a fresh PostgreSQL database. */
export interface TwinStores {
    server: PgServer;
    pool: pg.Pool;
    sqlite: Database.Database;
    /** The SQLite store (its writer), for inserts and deletes during a test. */
    store: SqliteEventStore;
    close(): Promise<void>;
}

/** Takes a server (`own` when a test pauses it), creates and migrates a database, and loads `events` into both backends. */
export async function openTwinStores(events: readonly NewEvent[], kind: PgServerKind = 'shared'): Promise<TwinStores> {
    const server = await pgServerFor(kind);
    const pool = new pg.Pool({ connectionString: await server.createDatabase('query'), max: 6, connectionTimeoutMillis: 2000 });
    pool.on('error', () => undefined);
    await migrate(pool);
    await insertEvents(pool, events);
    await pool.query('ANALYZE');
    const dir = await mkdtemp(join(tmpdir(), 'pg-query-'));
    const file = join(dir, 'events.sqlite');
    const store = await SqliteEventStore.open({ file, queryWorkers: 0 });
    await store.importEvents([...events]);
    const sqlite = new Database(file, { readonly: true });
    prepareReader(sqlite);
    return {
        server,
        pool,
        sqlite,
        store,
        close: async () => {
            sqlite.close();
            await store.close();
            await pool.end().catch(() => undefined);
            await server.stop();
            await rm(dir, { recursive: true, force: true });
        },
    };
}
