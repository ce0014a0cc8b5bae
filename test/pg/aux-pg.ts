import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { pgServerFor, pgTestsCanRun, type PgServer, type PgServerKind } from '../helpers/pg-server.js';

// The PostgreSQL store tests of the blob, webhook and feed roles. Without Debian's `postgresql`
// package they skip loudly locally and fail in CI, where that pass must run.
export const pgTestsRun = pgTestsCanRun('the PostgreSQL store tests');

/** A server for the describe block (its own, or databases of the run's one), its pools ended after it. */
export interface PgFixture {
    server: PgServer;
    /** A fresh database with `ddl` run in it. */
    database(ddl: readonly string[]): Promise<string>;
    /** A pool on `url` (2 s connect timeout, as the service's), ended after the block. */
    pool(url: string, options?: pg.PoolConfig): pg.Pool;
}

/** Takes a server before the block's tests (`own` when a test pauses or kills it) and stops it (and ends every pool) after them. */
export function usePgServer(kind: PgServerKind): PgFixture {
    const pools: pg.Pool[] = [];
    const fixture = {} as PgFixture;
    beforeAll(async () => {
        fixture.server = await pgServerFor(kind);
    });
    afterAll(async () => {
        await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
        await fixture.server?.stop();
    });
    fixture.pool = (url, options = {}) => {
        const created = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 2000, max: 6, ...options });
        // An idle connection the server drops must not crash the test process.
        created.on('error', () => undefined);
        pools.push(created);
        return created;
    };
    fixture.database = async (ddl) => {
        const url = await fixture.server.createDatabase();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
            for (const statement of ddl) await client.query(statement);
        } finally {
            await client.end();
        }
        return url;
    };
    return fixture;
}
