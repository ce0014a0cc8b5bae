import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ADMIN_URL_VAR } from './pg-pass.js';

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
let pgUser: { uid: number; gid: number } | undefined;

/** The `postgres` user's uid and gid: as root, the binaries run as it (the server refuses to run as root). */
function postgresUser(): { uid: number; gid: number } | undefined {
    if (!asRoot) return undefined;
    const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    pgUser ??= { uid: id('-u'), gid: id('-g') };
    return pgUser;
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
 * The env var through which the global setup (pg-global-setup.ts) hands the workers a data folder
 * initdb made once for the run: a server of a test's own starts on a copy of it (a copy takes a
 * fraction of initdb's time).
 */
export const TEMPLATE_VAR = 'TEST_PG_TEMPLATE';

/** A new folder for a cluster, which the postgres user may enter. */
function newBase(): string {
    const base = mkdtempSync(join(tmpdir(), 'whd-pg-'));
    chmodSync(base, 0o755);
    const user = postgresUser();
    if (user) chownSync(base, user.uid, user.gid);
    return base;
}

/** Runs initdb into `data` (inside `base`); fsync is skipped: a test cluster never outlives a crash of the machine. */
function initdb(base: string, data: string): void {
    const done = spawnSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions', '--no-sync'], { encoding: 'utf8', cwd: base, ...postgresUser() });
    if (done.status !== 0) throw new Error(`initdb failed: ${done.stderr || done.stdout}`);
}

/** An initialised data folder for servers to start on copies of (never started itself); `remove` deletes it. */
export function makePgTemplate(): { dir: string; remove(): void } {
    const base = newBase();
    const dir = join(base, 'data');
    initdb(base, dir);
    return { dir, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/**
 * Starts a new cluster: initdb in a temp folder (or a copy of the run's template, TEMPLATE_VAR), then `postgres` on a free loopback port with its
 * socket in that folder. `fsync` is on unless `fast` (tests that do not measure durability may skip it).
 * Commits stay synchronous either way: the WAL reaches the OS before a commit returns, so a killed
 * server (`kill()`) keeps every commit; only a crash of the machine could lose them in `fast` mode.
 * `settings` adds `name=value` server settings (e.g. `shared_preload_libraries=pg_stat_statements` for a bench).
 */
export async function startPgServer(options: { fast?: boolean; settings?: string[] } = {}): Promise<PgServer> {
    if (!pgAvailable()) throw new Error(`PostgreSQL binaries not found in ${PG_BIN}`);
    const base = newBase();
    const data = join(base, 'data');
    const user = postgresUser();
    const template = process.env[TEMPLATE_VAR];
    if (template && existsSync(template)) {
        // `cp -a` keeps the owner (postgres) and the 0700 mode the server insists on.
        const copied = spawnSync('cp', ['-a', template, data], { encoding: 'utf8' });
        if (copied.status !== 0) throw new Error(`copying the data folder ${template} failed: ${copied.stderr}`);
    } else {
        initdb(base, data);
    }
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

/** A server for a test file: its own when it pauses or kills it (`own`), else the run's one server. */
export type PgServerKind = 'own' | 'shared';

/**
 * A server for a file's tests. `shared` is the run's one server (the global setup's, through
 * ADMIN_URL_VAR) when there is one: the file creates databases of its own on it and drops them at
 * `stop`; it may not pause, resume or kill it. `own` (or no run server) starts a new one.
 */
export async function pgServerFor(kind: PgServerKind): Promise<PgServer> {
    const admin = process.env[ADMIN_URL_VAR];
    if (kind === 'own' || !admin) return startPgServer({ fast: true });
    const port = Number(new URL(admin).port);
    const url = (db = 'postgres'): string => {
        const u = new URL(admin);
        u.pathname = `/${db}`;
        return u.toString();
    };
    const created: string[] = [];
    const sql = async (text: string): Promise<void> => {
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        try {
            await client.query(text);
        } finally {
            await client.end();
        }
    };
    const refuse = (what: string) => async (): Promise<void> => {
        throw new Error(`the run's shared PostgreSQL server cannot ${what}: give the file a server of its own (pgServerFor('own'))`);
    };
    return {
        port,
        url,
        async createDatabase(prefix = 'whd') {
            const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
            await sql(`CREATE DATABASE ${name}`);
            created.push(name);
            return url(name);
        },
        pause: refuse('be paused'),
        resume: refuse('be resumed'),
        kill: refuse('be killed'),
        async stop() {
            // FORCE ends the connections a test left open.
            for (const name of created.splice(0)) await sql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
    };
}
