import type pg from 'pg';
import { BLOB_DDL } from './blob-store.js';
import { APPEND_FUNCTION_DDL } from './insert.js';
import { QUERY_INDEX_DDL } from './query-indexes.js';
import { REPLAY_JOBS_DDL } from './replay-jobs.js';
import { LOCKS } from './keys.js';
import { WEBHOOK_DDL } from './webhook-store.js';
import { guarded, storeError } from './pool.js';

/** Bumped when the DDL below changes incompatibly. */
export const SCHEMA_VERSION = 3;

export { EVENTS_CHANNEL, LOCKS } from './keys.js';

// Column values are encoded as SQLite's (rows.ts), so the same text compares the same way. `origin`
// names the instance that captured the event (the live feed skips its own). Event positions come
// from a sequence taken under the events lock, never from a default.
const DDL = [
    'CREATE EXTENSION IF NOT EXISTS pg_trgm',
    'CREATE SEQUENCE IF NOT EXISTS events_seq',
    `CREATE TABLE IF NOT EXISTS events (
        seq bigint PRIMARY KEY,
        id text NOT NULL UNIQUE,
        webhook_id text NOT NULL,
        ts bigint NOT NULL,
        method text NOT NULL,
        status_code int NOT NULL,
        size bigint NOT NULL,
        processing_time double precision NOT NULL,
        request_id text NOT NULL,
        request_url text NOT NULL,
        content_type text NOT NULL,
        remote_ip text NOT NULL,
        ip_bin bytea,
        user_agent text NOT NULL,
        headers text NOT NULL,
        query text NOT NULL,
        response_headers text NOT NULL,
        response_body text NOT NULL,
        signature_valid boolean,
        signature_provider text,
        signature_error text,
        body_kind text NOT NULL,
        blob_key text,
        meta text,
        origin text
    )`,
    // A keyed body filter's index (body-keys.ts, query-indexes.ts); NULL for a body walked instead.
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS body_keys bigint[]',
    // Their signature (body-keys.ts keySignature), carried by the sort indexes; NULL (walked) for rows
    // stored before it existed.
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS body_sig bigint',
    // Whether the query JSON is exactly its URL's query string, parsed (query-in-url.ts), which the
    // URL's sort index carries; NULL (always read) for rows stored before it existed.
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS query_plain boolean',
    // The rule that answered (webhooks/rules.ts): its index and name; NULL when none did.
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS answered_index int',
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS answered_by text',
    // A form body's description (forms/): its fields and files as JSON, and why it is incomplete; NULL when no form.
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS form_fields text',
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS form_files text',
    'ALTER TABLE events ADD COLUMN IF NOT EXISTS form_error text',
    // Sorts and filters have the query engine's indexes (QUERY_INDEX_DDL, under the "C" collation);
    // SQLite's own b-trees would only duplicate them and slow every insert. Point reads use them too
    // (idAtTimestamp: events_q_webhook); the former (webhook_id, ts, id) index under the database's
    // collation served no query and cost every insert, so a database that has it drops it.
    'DROP INDEX IF EXISTS events_webhook_ts',
    `CREATE INDEX IF NOT EXISTS events_offloaded ON events (seq) WHERE body_kind = 'offloaded'`,
    'CREATE TABLE IF NOT EXISTS bodies (seq bigint PRIMARY KEY, text text, raw bytea)',
    // The inbox (inbox.ts): group commits insert here, where only positions and ids are indexed, and
    // the mover carries rows to events and bodies, whose query indexes cost ~0.45 ms per event, after
    // the answer. Every read goes through the views, which hold each event exactly once.
    'CREATE TABLE IF NOT EXISTS events_inbox (LIKE events)',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS body_keys bigint[]',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS body_sig bigint',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS query_plain boolean',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS answered_index int',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS answered_by text',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS form_fields text',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS form_files text',
    'ALTER TABLE events_inbox ADD COLUMN IF NOT EXISTS form_error text',
    'CREATE UNIQUE INDEX IF NOT EXISTS events_inbox_seq ON events_inbox (seq)',
    'CREATE UNIQUE INDEX IF NOT EXISTS events_inbox_id ON events_inbox (id)',
    'CREATE TABLE IF NOT EXISTS bodies_inbox (seq bigint PRIMARY KEY, text text, raw bytea)',
    'CREATE OR REPLACE VIEW events_all AS SELECT * FROM events UNION ALL SELECT * FROM events_inbox',
    'CREATE OR REPLACE VIEW bodies_all AS SELECT * FROM bodies UNION ALL SELECT * FROM bodies_inbox',
    // Replaced by query/statements.ts's own join (its e.* would not take a column added to events).
    'DROP VIEW IF EXISTS events_with_body',
    'CREATE TABLE IF NOT EXISTS replays (id bigserial PRIMARY KEY, event_id text NOT NULL, data text NOT NULL)',
    'CREATE INDEX IF NOT EXISTS replays_event ON replays (event_id, id)',
    'CREATE TABLE IF NOT EXISTS forwards (event_id text PRIMARY KEY, data text NOT NULL)',
    'CREATE TABLE IF NOT EXISTS deleted (id text PRIMARY KEY)',
    'CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL)',
    'CREATE TABLE IF NOT EXISTS instances (id text PRIMARY KEY, started_at timestamptz NOT NULL DEFAULT now(), seen_at timestamptz NOT NULL DEFAULT now())',
    // owner: the instance that exports / forwards the row (the capturing one, until it dies).
    'CREATE TABLE IF NOT EXISTS outbox (seq bigint PRIMARY KEY, owner text)',
    'CREATE INDEX IF NOT EXISTS outbox_owner ON outbox (owner, seq)',
    // seq here is a backlog position (taken over rows move to the end of their new owner's backlog).
    'CREATE TABLE IF NOT EXISTS forward_backlog (seq bigint PRIMARY KEY, event_id text NOT NULL UNIQUE, exact boolean NOT NULL, owner text)',
    'CREATE INDEX IF NOT EXISTS forward_backlog_owner ON forward_backlog (owner, seq)',
];

/**
 * Creates or migrates the schema. Idempotent; runs under a session advisory lock, so instances
 * started together take turns and each finds the schema complete after its turn.
 */
export async function migrate(pool: pg.Pool): Promise<void> {
    const client = await guarded(() => pool.connect());
    let failed: unknown;
    const onError = (error: Error): void => {
        failed = error;
    };
    client.on('error', onError);
    try {
        await client.query('SELECT pg_advisory_lock($1)', [LOCKS.migrate]);
        try {
            for (const statement of [...DDL, APPEND_FUNCTION_DDL, ...BLOB_DDL, ...WEBHOOK_DDL, ...QUERY_INDEX_DDL, ...REPLAY_JOBS_DDL]) await client.query(statement);
            // A database this build migrated says so (an older build then refuses it, below).
            await client.query(`INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value WHERE meta.value::int < excluded.value::int`, [String(SCHEMA_VERSION)]);
            const [row] = (await client.query<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`)).rows;
            if (Number(row?.value) > SCHEMA_VERSION) throw new Error(`The database schema is version ${row?.value}, newer than this build's ${SCHEMA_VERSION}: run a newer build`);
        } finally {
            await client.query('SELECT pg_advisory_unlock($1)', [LOCKS.migrate]);
        }
    } catch (error) {
        failed ??= error;
        throw storeError(error);
    } finally {
        // A connection that failed is dropped (its session lock goes with it).
        client.off('error', onError);
        client.release(failed instanceof Error ? failed : undefined);
    }
}
