import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ConfigError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { Storage } from './roles.js';
import { openSqliteStorage, type SqliteStoreOptions } from './sqlite/index.js';

export type { QueryPoolOptions } from './sqlite/index.js';

// The one place that picks the backend. Nothing outside src/storage imports sqlite/ or pg/.

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
    sqlite: SqliteStoreOptions;
    log: Logger;
    /** This instance's id among those sharing the database; a fresh one per start unless given. */
    instanceId?: string;
}

/** A fresh id for this process among the instances sharing a database. */
export function newInstanceId(): string {
    return `${hostname().slice(0, 32)}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Opens the configured backend. The PostgreSQL module (and its driver) loads only when a database
 * is configured, so SQLite mode starts as fast as before.
 */
export async function openStorage(options: OpenStorageOptions): Promise<Storage> {
    const { database } = options;
    if (database === undefined) return openSqliteStorage(options.sqlite);
    checkDatabaseUrl(database);
    const { openPgStorage } = await import('./pg/index.js');
    // The `queryPool` start options bound queries on either backend: admitted at once and the time limit.
    const { maxInFlight, timeoutMs } = options.sqlite.pool ?? {};
    const queryLimits = { ...(maxInFlight !== undefined ? { maxInFlight } : {}), ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
    return openPgStorage({ url: database.url, instanceId: options.instanceId ?? newInstanceId(), log: options.log, queryLimits });
}
