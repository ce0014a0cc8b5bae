// Shared by the bench scripts: run the built service (dist/main.js) as a real process on a storage folder.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = join(root, 'dist', 'main.js');
/** Where runs keep their storage folders; BENCH_DATA_DIR moves them (e.g. to a tmpfs). */
export const DATA = process.env.BENCH_DATA_DIR ?? join(root, 'bench', '.data');

/** Builds dist/ when it is missing or older than src/ (the same check as `npm start`). */
export function ensureBuilt() {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-needed.mjs')], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
}

/** A new, empty storage folder under bench/.data/. */
export function freshDir(name) {
    const dir = join(DATA, `${name}-${process.pid}-${Date.now()}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return dir;
}

const doomed = new Set();
process.once('exit', () => {
    for (const dir of doomed) rmSync(dir, { recursive: true, force: true });
});

/**
 * Deletes a folder made by freshDir when the bench process ends, not now. Deleting the tens of
 * thousands of dataset files of one run made the next run's file creation slow: perf showed ~30% of
 * the next service's CPU in ext4's inode allocation (`find_inode_bit` → `recently_deleted`), which
 * penalised whichever variant ran second.
 */
export function removeDir(dir) {
    doomed.add(dir);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until `probe()` returns a value other than undefined. */
export async function waitFor(probe, { timeoutMs = 30_000, intervalMs = 20, what = 'a condition' } = {}) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = await probe().catch(() => undefined);
        if (value !== undefined) return value;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(intervalMs);
    }
}

/**
 * Spawns `node dist/main.js` (or another build's `main`) on port 0 with `CRAWLEE_STORAGE_DIR=dir` and the run `input`,
 * and resolves once GET /ready answers 200.
 */
export async function startService({ dir, input = {}, env = {}, readyIntervalMs = 20, main = MAIN, nodeArgs = [] }) {
    const childEnv = { ...process.env };
    for (const name of Object.keys(childEnv)) if (/^(APIFY_|ACTOR_|CRAWLEE_)/.test(name) || name === 'INPUT') delete childEnv[name];
    Object.assign(childEnv, { CRAWLEE_STORAGE_DIR: dir, ACTOR_WEB_SERVER_PORT: '0', INPUT: JSON.stringify({ rateLimitPerMinute: 0, ...input }), ...env });
    const spawnedAt = performance.now();
    // BENCH_NODE_ARGS adds node flags to every service a bench starts, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'.
    const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean) : [];
    const child = spawn(process.execPath, ['--no-node-snapshot', ...extra, ...nodeArgs, main], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s) => (output += s));
    let exit;
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exit = { code, signal }))));
    const alive = () => {
        if (exit) throw new Error(`service exited during start (${JSON.stringify(exit)}):\n${output}`);
    };
    const port = await waitFor(async () => {
        alive();
        const m = /listening on port (\d+)/.exec(output);
        return m ? Number(m[1]) : undefined;
    }, { what: 'the port line', intervalMs: 5 }).catch((e) => {
        child.kill('SIGKILL');
        throw e;
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => {
        alive();
        const res = await fetch(`${url}/ready`);
        await res.arrayBuffer();
        return res.status === 200 ? true : undefined;
    }, { what: 'GET /ready → 200', intervalMs: readyIntervalMs });
    const readyMs = performance.now() - spawnedAt;
    return {
        child,
        pid: child.pid,
        url,
        dir,
        readyMs,
        output: () => output,
        exited,
        async json(path) {
            const res = await fetch(`${url}${path}`);
            if (!res.ok) throw new Error(`GET ${path} → ${res.status}`);
            return res.json();
        },
        /** SIGTERM and wait for the exit. */
        async stop() {
            if (!exit) child.kill('SIGTERM');
            return exited;
        },
    };
}

/** The id of the first active webhook. */
export async function firstWebhook(svc) {
    const info = await svc.json('/info');
    return info.system.activeWebhooks[0].id;
}

/** The resident set size of a process in bytes, from /proc/<pid>/status (Linux). */
export function rssOf(pid) {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
}

/** Median of numbers. */
export function median(values) {
    const s = [...values].sort((a, b) => a - b);
    const mid = s.length >> 1;
    return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** A markdown table from a header row and data rows. */
export function table(header, rows) {
    const line = (cells) => `| ${cells.join(' | ')} |`;
    return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The load options the ingest-style benches share: `--rounds`, `--duration`, `--connections`, `--warmup`, as numbers. */
export function loadArgs(defaults = {}) {
    const d = { rounds: 3, duration: 10, connections: 50, warmup: 2, ...defaults };
    const { values } = parseArgs({ options: Object.fromEntries(Object.entries(d).map(([k, v]) => [k, { type: 'string', default: String(v) }])) });
    return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Number(v)]));
}

const TICKS_PER_S = 100;

/** CPU clock ticks (user + system) of every thread of a process, by thread id, with the thread's name (Linux /proc). */
export function threadTicks(pid) {
    return Object.fromEntries(
        readdirSync(`/proc/${pid}/task`).map((tid) => {
            const raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
            const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
            const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
            return [tid, { name, ticks: Number(fields[11]) + Number(fields[12]) }];
        }),
    );
}

/** CPU µs (user + system) a process has used so far, all its threads together (Linux /proc). */
export function processCpuUs(pid) {
    return (Object.values(threadTicks(pid)).reduce((sum, t) => sum + t.ticks, 0) * 1e6) / TICKS_PER_S;
}

/** CPU µs per request of each thread between two threadTicks snapshots, busiest first, above `minUs`. */
export function threadCpuPerRequest(before, after, requests, minUs = 0.5) {
    return Object.entries(after)
        .map(([tid, { name, ticks }]) => ({ tid, name, us: ((ticks - (before[tid]?.ticks ?? 0)) * 1e6) / TICKS_PER_S / requests }))
        .filter((t) => t.us > minUs)
        .sort((a, b) => b.us - a.us);
}

/** Runs `load()` between two threadTicks snapshots of `pid`: its result, seconds, this process's CPU µs, and the snapshots. */
export async function measureThreads(pid, load) {
    const before = threadTicks(pid);
    const own = process.cpuUsage();
    const started = performance.now();
    const result = await load();
    const seconds = (performance.now() - started) / 1000;
    const after = threadTicks(pid);
    const { user, system } = process.cpuUsage(own);
    return { result, seconds, ownUs: user + system, before, after };
}
