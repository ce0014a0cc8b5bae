import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { migrate } from '../../src/storage/pg/schema.js';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { prepareReader } from '../../src/storage/sqlite/schema.js';
import type { NewEvent } from '../../src/storage/types.js';
import { pgServerFor, pgTestsCanRun, type PgServer, type PgServerKind } from '../helpers/pg-server.js';
import { BODY_COLUMNS, EVENT_COLUMNS, eventRows, placeholders } from './event-rows.js';

/** Whether the PostgreSQL query tests can run; without the package they skip loudly, and fail in CI. */
export const pgQueryTestsRun = pgTestsCanRun('the PostgreSQL query tests');

/** Inserts events as the backend stores them (event-rows.ts), positions from events_seq, in order. */
export async function insertEvents(pool: pg.Pool, events: readonly NewEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += 200) {
        const batch = events.slice(start, start + 200);
        const { rows } = await pool.query<{ seq: string }>('SELECT nextval(\'events_seq\') AS seq FROM generate_series(1, $1)', [batch.length]);
        const eventValues: unknown[] = [];
        const bodyValues: unknown[] = [];
        batch.forEach((e, i) => {
            const { event, body } = eventRows(rows[i]!.seq, e);
            eventValues.push(...event);
            if (body) bodyValues.push(...body);
        });
        await pool.query(`INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${placeholders(batch.length, EVENT_COLUMNS.length)}`, eventValues);
        if (bodyValues.length) await pool.query(`INSERT INTO bodies (${BODY_COLUMNS.join(', ')}) VALUES ${placeholders(bodyValues.length / BODY_COLUMNS.length, BODY_COLUMNS.length)}`, bodyValues);
    }
}

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
