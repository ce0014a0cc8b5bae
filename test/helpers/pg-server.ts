import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian's `postgresql` package puts the server binaries (override with PG_BIN). */
export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Whether a PostgreSQL server can be started here (Debian's package installed). */
export function pgAvailable(): boolean {
    return existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'postgres'));
}

/**
 * Whether tests that need PostgreSQL (`what` names them) can run here. Without Debian's `postgresql`
 * package they are skipped with a loud warning locally, and the file fails in CI (`CI` set), where
 * they must run.
 */
export function pgTestsCanRun(what: string): boolean {
    if (pgAvailable()) return true;
    const message = `PostgreSQL is not installed (Debian package \`postgresql\`): ${what} cannot run`;
    if (process.env.CI) throw new Error(message);
    console.warn(`\n${'!'.repeat(100)}\n!! SKIPPED: ${message}\n${'!'.repeat(100)}\n`);
    return false;
}

/** A throwaway PostgreSQL cluster on loopback, owned by the tests. */
export interface PgServer {
    port: number;
    /** Connection string of database `db` (default `postgres`). */
    url(db?: string): string;
    /** Creates a new empty database and answers its connection string. */
    createDatabase(prefix?: string): Promise<string>;
    /** Stops the server (fast shutdown), keeping its data: the database is "away". */
    pause(): Promise<void>;
    /** Starts the stopped server again on the same port and data. */
    resume(): Promise<void>;
    /** SIGKILLs the server process, keeping its data (crash). */
    kill(): Promise<void>;
    /** Stops the server and deletes its data folder. */
    stop(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** The `postgres` user's uid and gid: as root, the binaries run as it (the server refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
    if (!asRoot) return undefined;
    const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    return { uid: id('-u'), gid: id('-g') };
}

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const srv = createServer();
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => {
            const { port } = srv.address() as { port: number };
            srv.close(() => resolve(port));
        });
    });
}

let counter = 0;

/**
 * Starts a new cluster: initdb in a temp folder, then `postgres` on a free loopback port with its
 * socket in that folder. `fsync` is on unless `fast` (tests that do not measure durability may skip it).
 * Commits stay synchronous either way: the WAL reaches the OS before a commit returns, so a killed
 * server (`kill()`) keeps every commit; only a crash of the machine could lose them in `fast` mode.
 * `settings` adds `name=value` server settings (e.g. `shared_preload_libraries=pg_stat_statements` for a bench).
 */
export async function startPgServer(options: { fast?: boolean; settings?: string[] } = {}): Promise<PgServer> {
    if (!pgAvailable()) throw new Error(`PostgreSQL binaries not found in ${PG_BIN}`);
    const base = mkdtempSync(join(tmpdir(), 'whd-pg-'));
    chmodSync(base, 0o755);
    const data = join(base, 'data');
    const user = postgresUser();
    if (user) chownSync(base, user.uid, user.gid);
    const done = spawnSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions'], { encoding: 'utf8', cwd: base, ...user });
    if (done.status !== 0) throw new Error(`initdb failed: ${done.stderr || done.stdout}`);
    const port = await freePort();
    let child: ChildProcess | undefined;
    let log = '';
    const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', 'shared_buffers=128MB', ...(options.fast ? ['-c', 'fsync=off', '-c', 'full_page_writes=off'] : []), ...(options.settings ?? []).flatMap((s) => ['-c', s])];
    const url = (db = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${db}`;

    const launch = async (): Promise<void> => {
        const proc = spawn(join(PG_BIN, 'postgres'), ['-D', data, '-k', base, '-p', String(port), ...settings], { stdio: ['ignore', 'pipe', 'pipe'], cwd: base, ...user });
        child = proc;
        proc.stdout?.on('data', (d: Buffer) => (log += d.toString()));
        proc.stderr?.on('data', (d: Buffer) => (log += d.toString()));
        const deadline = Date.now() + 30_000;
        for (;;) {
            if (proc.exitCode !== null) throw new Error(`postgres exited (${proc.exitCode}): ${log.slice(-2000)}`);
            const client = new pg.Client({ connectionString: url() });
            try {
                await client.connect();
                await client.end();
                return;
            } catch {
                await client.end().catch(() => undefined);
                if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${log.slice(-2000)}`);
                await new Promise((r) => setTimeout(r, 100));
            }
        }
    };
    const halt = async (signal: NodeJS.Signals): Promise<void> => {
        const proc = child;
        if (!proc || proc.exitCode !== null) return;
        // SIGINT is PostgreSQL's fast shutdown; SIGKILL a crash.
        const exited = new Promise<void>((r) => proc.once('exit', () => r()));
        proc.kill(signal);
        await exited;
        child = undefined;
    };
    await launch();
    return {
        port,
        url,
        async createDatabase(prefix = 'whd') {
            const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
            const client = new pg.Client({ connectionString: url() });
            await client.connect();
            try {
                await client.query(`CREATE DATABASE ${name}`);
            } finally {
                await client.end();
            }
            return url(name);
        },
        pause: () => halt('SIGINT'),
        resume: launch,
        kill: async () => {
            // The backends first (a killed postmaster leaves them holding its shared memory), then the postmaster.
            if (child?.pid) spawnSync('pkill', ['-KILL', '-P', String(child.pid)]);
            await halt('SIGKILL');
        },
        async stop() {
            await halt('SIGINT');
            rmSync(base, { recursive: true, force: true });
        },
    };
}
