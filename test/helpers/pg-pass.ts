import pg from 'pg';

// The PostgreSQL pass of the integration suite (`TEST_PG=1`, see test/helpers/pg-global-setup.ts):
// every service a test starts gets a fresh database of the pass's one throwaway server through
// DATABASE_URL, and a restart on the same storage folder gets the same database back.

/** Whether this run is the PostgreSQL pass. */
export const pgPass = process.env.TEST_PG === '1';

/** The env var through which the global setup hands the server's admin URL to the test workers. */
export const ADMIN_URL_VAR = 'TEST_PG_ADMIN_URL';

const byDir = new Map<string, string>();
let counter = 0;

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
    const url = process.env[ADMIN_URL_VAR];
    if (!url) throw new Error(`TEST_PG=1 but ${ADMIN_URL_VAR} is not set: run the PostgreSQL pass through vitest.pg.config.ts (npm run test:pg)`);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
        return await run(client);
    } finally {
        await client.end();
    }
}

/**
 * The env a service on storage folder `dir` needs in this pass: `{ DATABASE_URL }` of its own
 * database (created on first use, the same one for a restart on `dir`), or nothing in the SQLite pass.
 */
export async function storageEnv(dir: string): Promise<Record<string, string>> {
    if (!pgPass) return {};
    let url = byDir.get(dir);
    if (!url) {
        const name = `svc_${process.pid}_${Date.now().toString(36)}_${counter++}`;
        await admin((c) => c.query(`CREATE DATABASE ${name}`));
        url = withDatabase(process.env[ADMIN_URL_VAR]!, name);
        byDir.set(dir, url);
    }
    return { DATABASE_URL: url };
}

/** `url` with its database name replaced by `name`. */
function withDatabase(url: string, name: string): string {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.toString();
}

/**
 * Drops the database of storage folder `dir`, when it has one (the folder is being deleted: no
 * restart will come). Thousands of services would otherwise fill the disk with databases.
 */
export async function releaseStorage(dir: string): Promise<void> {
    const url = byDir.get(dir);
    if (!url) return;
    byDir.delete(dir);
    const name = new URL(url).pathname.slice(1);
    // FORCE ends connections a stopped service may still have closing.
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/**
 * In the PostgreSQL pass, fails when a started service is not on PostgreSQL: a service that ignored
 * DATABASE_URL would run the pass on SQLite again and prove nothing about PostgreSQL.
 */
export function requirePostgres(backend: unknown, output = ''): void {
    if (pgPass && backend !== 'postgres') throw new Error(`PostgreSQL pass: the service started on backend ${JSON.stringify(backend)}, not postgres (was DATABASE_URL taken?)${output ? `\n--- output ---\n${output}` : ''}`);
}
