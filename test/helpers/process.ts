import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { releaseStorage, requirePostgres, storageEnv } from './pg-pass.js';
import { until } from './until.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built entry point the tests run as a real process. */
export const MAIN = join(root, 'dist', 'main.js');

/** How a service process ended. */
export interface Exit {
    code: number | null;
    signal: NodeJS.Signals | null;
}

/** The real service, `node dist/main.js`, running as a child process on its own storage folder. */
export interface ServiceProcess {
    child: ChildProcess;
    pid: number;
    port: number;
    /** Loopback base URL. */
    url: string;
    /** Storage root (CRAWLEE_STORAGE_DIR). */
    dir: string;
    /** Resolves when the process has exited. */
    exited: Promise<Exit>;
    /** Everything the process wrote to stdout and stderr so far. */
    output(): string;
    /** fetch() against the service; `path` is relative to its base URL. */
    fetch(path: string, init?: RequestInit): Promise<Response>;
    /** Sends a signal to the process. */
    signal(signal: NodeJS.Signals): void;
    /** SIGTERM, then waits for the exit (SIGKILL when it takes longer than `timeoutMs`). */
    stop(timeoutMs?: number): Promise<Exit>;
}

/** How to start a service process. */
export interface StartProcessOptions {
    /** Storage root; a new temporary folder when absent. Pass an earlier process's `dir` to restart on it. */
    dir?: string;
    /** Run input, passed as the `INPUT` env var. `rateLimitPerMinute: 0` is added unless given: tests poll. */
    input?: Record<string, unknown>;
    /** Extra environment variables. */
    env?: Record<string, string>;
    /** How long to wait for the port line and a 200 from /ready. */
    readyTimeoutMs?: number;
}

/** A new temporary storage folder. */
export function tempStorageDir(prefix = 'whd-proc-'): Promise<string> {
    return mkdtemp(join(tmpdir(), prefix));
}

/** Deletes a storage folder (and, in the PostgreSQL pass, its database). */
export async function removeDir(dir: string): Promise<void> {
    await rm(dir, { recursive: true, force: true });
    await releaseStorage(dir);
}

/**
 * Runs the built service to its end on a fresh storage folder, with nothing in its environment but
 * PATH and `env` (killed after 15 s): how a start that must fail ends. Resolved on 'close', once its
 * output is all read.
 */
export async function runMainToEnd(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const dir = await tempStorageDir('whd-main-');
    try {
        return await new Promise((resolve) => {
            const child = spawn(process.execPath, ['--no-node-snapshot', MAIN], { env: { PATH: process.env.PATH ?? '', CRAWLEE_STORAGE_DIR: dir, ACTOR_WEB_SERVER_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
            let stdout = '';
            let stderr = '';
            child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
            child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
            const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('close', (code) => {
                clearTimeout(timer);
                resolve({ code, stdout, stderr });
            });
        });
    } finally {
        await rm(dir, { recursive: true, force: true });
    }
}

// The parent's own service settings must not leak into the child: it gets exactly ours.
const isServiceVar = (name: string): boolean => /^(APIFY_|ACTOR_|CRAWLEE_)/.test(name) || ['INPUT', 'INGEST_RATE_LIMIT_PER_MINUTE', 'STORAGE_SYNC', 'DATABASE_URL'].includes(name);

/** Spawns `node dist/main.js` on port 0, reads its port from the log, and waits for GET /ready → 200. */
export async function startServiceProcess(options: StartProcessOptions = {}): Promise<ServiceProcess> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
    const dir = options.dir ?? (await tempStorageDir());
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !isServiceVar(name)) env[name] = value;
    Object.assign(env, {
        CRAWLEE_STORAGE_DIR: dir,
        // In the PostgreSQL pass (TEST_PG=1): the folder's own database, the same one on a restart.
        ...(await storageEnv(dir)),
        ACTOR_WEB_SERVER_PORT: '0',
        INPUT: JSON.stringify({ rateLimitPerMinute: 0, ...options.input }),
        ...options.env,
    });
    const child = spawn(process.execPath, ['--no-node-snapshot', MAIN], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    // 'close', not 'exit': 'exit' can come before the last of its output is read.
    const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    let exitedNow: Exit | undefined;
    void exited.then((e) => (exitedNow = e));

    const timeoutMs = options.readyTimeoutMs ?? 30_000;
    // Startup fails fast when the process dies instead of waiting out the timeout.
    const died = exited.then((e) => Promise.reject(new Error(`exited with ${JSON.stringify(e)}`)));
    died.catch(() => undefined);
    let port: number;
    const giveUp = new AbortController();
    void exited.then(() => giveUp.abort());
    try {
        port = await Promise.race([died, until('the "listening on port" line', async () => {
            const m = /listening on port (\d+)/.exec(output);
            return m ? Number(m[1]) : undefined;
        }, { timeoutMs, intervalMs: 20, signal: giveUp.signal })]);
        const ready = await Promise.race([died, until('GET /ready → 200', async () => {
            const res = await fetch(`http://127.0.0.1:${port}/ready`);
            const text = await res.text();
            return res.status === 200 ? text : undefined;
        }, { timeoutMs, intervalMs: 50, signal: giveUp.signal })]);
        requirePostgres((JSON.parse(ready) as { checks?: { database?: { backend?: unknown } } }).checks?.database?.backend);
    } catch (error) {
        child.kill('SIGKILL');
        await exited;
        if (options.dir === undefined) await removeDir(dir);
        throw new Error(`service did not start: ${(error as Error).message}\n--- output ---\n${output}`);
    }
    const url = `http://127.0.0.1:${port}`;

    return {
        child,
        pid: child.pid!,
        port,
        url,
        dir,
        exited,
        output: () => output,
        fetch: (path, init) => fetch(`${url}${path}`, init),
        signal: (signal) => {
            if (!exitedNow) child.kill(signal);
        },
        stop: async (stopTimeoutMs = 30_000) => {
            if (exitedNow) return exitedNow;
            child.kill('SIGTERM');
            const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
            const exit = await exited;
            clearTimeout(timer);
            return exit;
        },
    };
}

/** Reads a JSON answer, failing loudly on a non-2xx status or non-JSON body. */
export async function getJson<T>(svc: ServiceProcess, path: string): Promise<T> {
    const res = await svc.fetch(path);
    const text = await res.text();
    if (!res.ok) throw new Error(`GET ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
}

/** The active webhook ids as GET /info lists them. */
export async function webhookIds(svc: ServiceProcess): Promise<string[]> {
    const info = await getJson<{ system: { activeWebhooks: { id: string }[] } }>(svc, '/info');
    return info.system.activeWebhooks.map((w) => w.id);
}

/** The figures of GET /system/metrics that these tests read. */
export interface MetricsView {
    storage: { eventsStored: number };
    sync: { outboxBacklog: number; datasetExported: number };
}

/** GET /system/metrics. */
export function metrics(svc: ServiceProcess): Promise<MetricsView> {
    return getJson<MetricsView>(svc, '/system/metrics');
}

/** A log summary as GET /logs lists it (only the fields these tests rely on). */
export interface LogItem {
    id: string;
    requestId: string;
    webhookId: string;
}

/** Every stored event, via GET /logs in offset pages. Call it when no ingest is running. */
export async function listAllLogs(svc: ServiceProcess, pageSize = 5000): Promise<LogItem[]> {
    const byId = new Map<string, LogItem>();
    let total = Infinity;
    for (let offset = 0; offset < total; ) {
        const page = await getJson<{ count: number; total: number; items: LogItem[] }>(svc, `/logs?limit=${pageSize}&offset=${offset}`);
        total = page.total;
        for (const item of page.items) byId.set(item.id, item);
        if (page.items.length === 0) break;
        offset += page.items.length;
    }
    if (byId.size !== total) throw new Error(`GET /logs paging saw ${byId.size} distinct ids but total is ${total}`);
    return [...byId.values()];
}

/** The raw stored payload of an event. */
export async function payloadOf(svc: ServiceProcess, logId: string): Promise<Buffer> {
    const res = await svc.fetch(`/logs/${encodeURIComponent(logId)}/payload`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`GET /logs/${logId}/payload → ${res.status}: ${bytes.toString('utf8', 0, 300)}`);
    return bytes;
}

/** The local default dataset: parsed items (one per file, in order), unparseable files, and missing numbers below the highest. */
export interface LocalDataset {
    items: Record<string, unknown>[];
    unreadable: string[];
    gaps: number[];
}

/** Reads `<dir>/datasets/default/NNNNNNNNN.json` as the SDK lays a local dataset out. */
export async function readLocalDataset(dir: string): Promise<LocalDataset> {
    const folder = join(dir, 'datasets', 'default');
    const names = existsSync(folder) ? (await readdir(folder)).filter((n) => /^\d+\.json$/.test(n)).sort() : [];
    const items: Record<string, unknown>[] = [];
    const unreadable: string[] = [];
    for (const name of names) {
        try {
            items.push(JSON.parse(await readFile(join(folder, name), 'utf8')) as Record<string, unknown>);
        } catch {
            unreadable.push(name);
        }
    }
    const numbers = new Set(names.map((n) => Number.parseInt(n, 10)));
    const gaps: number[] = [];
    const highest = names.length ? Number.parseInt(names[names.length - 1]!, 10) : 0;
    for (let i = 1; i <= highest; i++) if (!numbers.has(i)) gaps.push(i);
    return { items, unreadable, gaps };
}
