import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage } from '../../src/storage/pg/index.js';
import type { Storage } from '../../src/storage/roles.js';
import { pgTestsCanRun, startPgServer, type PgServer } from '../helpers/pg-server.js';

// The PostgreSQL backend's own tests (pg-core). Without Debian's `postgresql` package they skip
// loudly locally and fail in CI, where the PostgreSQL pass must run.
export const pgCoreRuns = pgTestsCanRun('the PostgreSQL backend tests');

/** A throwaway server for the file; every store and client opened through it is closed after. */
export interface CoreFixture {
    server: PgServer;
    /** Opens the backend on `url` (of any server) as instance `instanceId`; closed after the file. */
    open(url: string, instanceId: string): Promise<Storage>;
    /** A plain client on `url`, for looking at rows and setting up states. */
    sql(url: string, text: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/** Starts the server before the file's tests; closes stores and stops it after. */
export function useCoreServer(): CoreFixture {
    const stores: Storage[] = [];
    const fixture = {} as CoreFixture;
    beforeAll(async () => {
        fixture.server = await startPgServer({ fast: true });
    }, 60_000);
    afterAll(async () => {
        await Promise.all(stores.map((s) => s.close().catch(() => undefined)));
        await fixture.server?.stop();
    }, 60_000);
    fixture.open = async (url, instanceId) => {
        const store = await openPgStorage({ url, instanceId, log: silentLogger });
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

/** Resolves once `check` holds (sync or async), trying every `intervalMs`; throws after `ms`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000, intervalMs = 100): Promise<void> {
    const deadline = Date.now() + ms;
    while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
        await new Promise((r) => setTimeout(r, intervalMs));
    }
}
