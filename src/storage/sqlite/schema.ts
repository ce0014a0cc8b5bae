import type { Database } from 'better-sqlite3';
import type { SyncMode } from '../event-store.js';
import { REPLAY_JOBS_DDL } from './writer-jobs.js';

export { SINK_POSITION_KEY } from '../meta-keys.js';

/** Replays kept per event (the latest ones). */
export const REPLAY_HISTORY = 50;

/** Bumped when the DDL below changes incompatibly. */
export const SCHEMA_VERSION = 1;

// Body bytes live apart from the event row so that scans over event columns stay small,
// and a body substring search reads only the bodies table.
const DDL = `
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    webhook_id TEXT NOT NULL,
    ts INTEGER NOT NULL,
    method TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    size INTEGER NOT NULL,
    processing_time REAL NOT NULL,
    request_id TEXT NOT NULL,
    request_url TEXT NOT NULL,
    content_type TEXT NOT NULL,
    remote_ip TEXT NOT NULL,
    ip_bin BLOB,
    user_agent TEXT NOT NULL,
    headers TEXT NOT NULL,
    query TEXT NOT NULL,
    response_headers TEXT NOT NULL,
    response_body TEXT NOT NULL,
    signature_valid INTEGER,
    signature_provider TEXT,
    signature_error TEXT,
    body_kind TEXT NOT NULL,
    blob_key TEXT,
    meta TEXT,
    answered_index INTEGER,
    answered_by TEXT,
    form_fields TEXT,
    form_files TEXT,
    form_error TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS events_id ON events(id);
CREATE INDEX IF NOT EXISTS events_ts ON events(ts, id);
CREATE INDEX IF NOT EXISTS events_webhook_ts ON events(webhook_id, ts, id);
CREATE INDEX IF NOT EXISTS events_status ON events(status_code, ts);
CREATE INDEX IF NOT EXISTS events_size ON events(size);
CREATE INDEX IF NOT EXISTS events_request_id ON events(request_id);
CREATE INDEX IF NOT EXISTS events_ip ON events(ip_bin);
CREATE INDEX IF NOT EXISTS events_offloaded ON events(seq) WHERE body_kind = 'offloaded';
CREATE TABLE IF NOT EXISTS bodies (
    seq INTEGER PRIMARY KEY,
    text TEXT,
    raw BLOB
);
CREATE TABLE IF NOT EXISTS outbox (seq INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS replays (
    id INTEGER PRIMARY KEY,
    event_id TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS replays_event ON replays(event_id, id);
CREATE TABLE IF NOT EXISTS forwards (event_id TEXT PRIMARY KEY, data TEXT NOT NULL);
-- Captures committed for forwarding and still without a final outcome, in capture order. exact: 1 when
-- the stored request (body, headers) is what gets forwarded, 0 when only the capture's memory had it.
-- Ids of deleted events, so that no import (a restore from the dataset, another run's capture) brings them back.
CREATE TABLE IF NOT EXISTS deleted (id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS forward_backlog (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE, exact INTEGER NOT NULL);
`;

/** Opens the schema on the single writer connection: WAL, the commit durability, tables and indexes. */
export function prepareWriter(db: Database, sync: SyncMode): void {
    // Deleted captures free pages; INCREMENTAL lets the writer give them back to the file system in
    // small steps (writer-delete.ts). It only takes effect on a database created with it (before any
    // table); an older file keeps reusing its free pages for new captures instead.
    db.pragma('auto_vacuum = INCREMENTAL');
    db.pragma('journal_mode = WAL');
    db.pragma(sync === 'full' ? 'synchronous = FULL' : 'synchronous = NORMAL');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -16000');
    db.pragma('busy_timeout = 5000');
    // Long searches can keep the WAL from restarting; after each checkpoint, shrink it back to 64 MB.
    db.pragma('journal_size_limit = 67108864');
    db.exec(DDL);
    addAnsweredBy(db);
    addForm(db);
    db.exec(REPLAY_JOBS_DDL);
    db.prepare(`INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)`).run(String(SCHEMA_VERSION));
}

/**
 * The rule that answered a capture (webhooks/rules.ts): a database made before rules existed gets
 * the columns (NULL for its rows: no rule answered them). Only rows a rule answered are indexed.
 */
function addAnsweredBy(db: Database): void {
    const columns = new Set((db.pragma('table_info(events)') as { name: string }[]).map((c) => c.name));
    if (!columns.has('answered_index')) db.exec('ALTER TABLE events ADD COLUMN answered_index INTEGER');
    if (!columns.has('answered_by')) db.exec('ALTER TABLE events ADD COLUMN answered_by TEXT');
    db.exec('CREATE INDEX IF NOT EXISTS events_answered_by ON events(answered_by, ts) WHERE answered_by IS NOT NULL');
}

/**
 * A form body's description (forms/): a database made before forms were described gets the columns
 * (NULL for its rows: described as no form). Filters on them scan, as substring filters do.
 */
function addForm(db: Database): void {
    const columns = new Set((db.pragma('table_info(events)') as { name: string }[]).map((c) => c.name));
    for (const column of ['form_fields', 'form_files', 'form_error']) if (!columns.has(column)) db.exec(`ALTER TABLE events ADD COLUMN ${column} TEXT`);
}

/** The durability the connection actually commits with, read back from SQLite. */
export function syncModeOf(db: Database): SyncMode | 'other' {
    const level = db.pragma('synchronous', { simple: true });
    return level === 2 ? 'full' : level === 1 ? 'normal' : 'other';
}

/** Settings for a read-only connection (point lookups, queries, outbox reads). */
export function prepareReader(db: Database, cacheKb = 32_000): void {
    db.pragma('busy_timeout = 5000');
    db.pragma(`cache_size = -${cacheKb}`);
    db.pragma('temp_store = MEMORY');
}
