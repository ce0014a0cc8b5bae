import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage, type PgStorageOptions } from '../../src/storage/pg/index.js';
import type { Storage } from '../../src/storage/roles.js';
import { pgServerFor, pgTestsCanRun, type PgServer, type PgServerKind } from '../helpers/pg-server.js';

// The PostgreSQL backend's own tests (pg-core). Without Debian's `postgresql` package they skip
// loudly locally and fail in CI, where the PostgreSQL pass must run.
export const pgCoreRuns = pgTestsCanRun('the PostgreSQL backend tests');

/** A server for the file (its own, or databases of the run's one); every store and client opened through it is closed after. */
export interface CoreFixture {
    server: PgServer;
    /** Opens the backend on `url` (of any server) as instance `instanceId`, with `options` over the defaults; closed after the file. */
    open(url: string, instanceId: string, options?: Partial<PgStorageOptions>): Promise<Storage>;
    /** A plain client on `url`, for looking at rows and setting up states. */
    sql(url: string, text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/** Takes the server before the file's tests (`own` when a test pauses or kills it); closes stores and stops it after. */
export function useCoreServer(kind: PgServerKind): CoreFixture {
    const stores: Storage[] = [];
    const fixture = {} as CoreFixture;
    beforeAll(async () => {
        fixture.server = await pgServerFor(kind);
    }, 60_000);
    afterAll(async () => {
        await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
        await fixture.server?.stop();
    }, 60_000);
    fixture.open = async (url, instanceId, options = {}) => {
        const store = await openPgStorage({ url, instanceId, log: silentLogger, ...options });
        stores.push(store);
        return store;
    };
    fixture.sql = async (url, text, params = []) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
            return (await client.query(text, params)).rows as Record<string, unknown>[];
        } finally {
            await client.end();
        }
    };
    return fixture;
}
