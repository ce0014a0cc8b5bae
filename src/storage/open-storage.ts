import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIMINGS, type ServiceTimings } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { ActorStorage } from './apify/actor-storage.js';
import type { Deadlines } from './apify/deadline.js';
import type { StorageBundle } from './bundle.js';
import { embeddedBundle } from './embedded-bundle.js';
import { sharedBundle } from './shared-bundle.js';
import { openSqliteStorage, type SqliteStoreOptions } from './sqlite/index.js';

export type { QueryPoolOptions } from './sqlite/index.js';
export type { BackgroundContext, BackgroundWork, StorageBundle } from './bundle.js';

// The one place that picks the backend and completes it for its mode (bundle.ts). Nothing outside
// src/storage imports sqlite/ or pg/.

/** A PostgreSQL connection string and where it came from (for messages: the URL itself is never shown). */
export interface DatabaseChoice {
    url: string;
    source: 'DATABASE_URL' | 'input field "databaseUrl"';
}

/** The database to share, if any: DATABASE_URL wins over the `databaseUrl` input. */
export function chooseDatabase(envUrl: string | undefined, inputUrl: string | undefined): DatabaseChoice | undefined {
    if (envUrl !== undefined && envUrl.trim() !== '') return { url: envUrl.trim(), source: 'DATABASE_URL' };
    if (inputUrl !== undefined && inputUrl.trim() !== '') return { url: inputUrl.trim(), source: 'input field "databaseUrl"' };
    return undefined;
}

/** Refuses a connection string that is not a PostgreSQL URL, naming where it came from but never echoing it (it carries a password). */
export function checkDatabaseUrl(choice: DatabaseChoice): void {
    let protocol: string;
    try {
        protocol = new URL(choice.url).protocol;
    } catch {
        throw new ConfigError(`${choice.source}: not a URL; expected postgres://user:password@host:5432/database`);
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') throw new ConfigError(`${choice.source}: must start with postgres:// or postgresql://`);
}

/** Options of openStorage. */
export interface OpenStorageOptions {
    /** With a database: PostgreSQL, shared by every instance on it. Without: the embedded SQLite file. */
    database: DatabaseChoice | undefined;
    /** The storage folder: SQLite mode keeps its file there (sqliteFile). */
    storageDir: string;
    /** SQLite mode's store; the query pool's bounds (`pool`) bound PostgreSQL's queries too. */
    sqlite: Omit<SqliteStoreOptions, 'file'>;
    /** The actor's key-value store and payload store, where SQLite mode keeps webhooks, payloads and deleted ids. */
    actor: Pick<ActorStorage, 'kvs' | 'blobs'>;
    /** Deadlines of the platform's API calls (SQLite mode's webhook store). */
    deadlines?: Deadlines;
    /** Whether this runs on the Apify platform, where Standby runs side by side share the actor's storages (default false). */
    onPlatform?: boolean;
    /** How often what others change is read again (default DEFAULT_TIMINGS). */
    timings?: Pick<ServiceTimings, 'webhookPollMs' | 'forwardPollMs'>;
    log: Logger;
    /** This instance's id among those sharing the database; a fresh one per start unless given. */
    instanceId?: string;
}

/** Where SQLite mode keeps its read model in the storage folder. */
export const sqliteFile = (storageDir: string): string => join(storageDir, 'webhook-debugger', 'events.sqlite');

/** A fresh id for this process among the instances sharing a database. */
export function newInstanceId(): string {
    return `${hostname().slice(0, 32)}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Opens the configured backend and completes it for its mode (StorageBundle). The PostgreSQL module
 * (and its driver) loads only when a database is configured, so SQLite mode starts as fast as before.
 * Rejects with ConfigError for a database URL that is not PostgreSQL's, StoreUnavailableError when
 * the database cannot be reached.
 */
export async function openStorage(options: OpenStorageOptions): Promise<StorageBundle> {
    const { database, log } = options;
    const timings = options.timings ?? DEFAULT_TIMINGS;
    if (database === undefined) {
        const file = sqliteFile(options.storageDir);
        // No file yet (a fresh container after a migration): the read model is rebuilt from the dataset.
        const fresh = !existsSync(file);
        const store = await openSqliteStorage({ ...options.sqlite, file });
        return embeddedBundle(store, fresh, { actor: options.actor, deadlines: options.deadlines, onPlatform: options.onPlatform ?? false, timings, log });
    }
    checkDatabaseUrl(database);
    const { openPgStorage } = await import('./pg/index.js');
    // The `queryPool` start options bound queries on either backend: admitted at once and the time limit.
    const { maxInFlight, timeoutMs } = options.sqlite.pool ?? {};
    const queryLimits = { ...(maxInFlight !== undefined ? { maxInFlight } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    return sharedBundle(await openPgStorage({ url: database.url, instanceId: options.instanceId ?? newInstanceId(), log, queryLimits }), timings);
}
