import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Builds dist/ when it is missing or older than src/ (the same check as `npm start`). */
export function ensureBuilt(): void {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-if-needed.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The built service running as its own process. */
export interface RunningService {
    child: ChildProcess;
    url: string;
    stop(): Promise<void>;
}

/** Spawns `node dist/main.js` on storage folder `dir` and waits for GET /ready → 200. */
export async function spawnService(dir: string, env: Record<string, string> = {}): Promise<RunningService> {
    const childEnv: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(APIFY_|ACTOR_|CRAWLEE_)/.test(k) && k !== 'INPUT') childEnv[k] = v;
    Object.assign(childEnv, { CRAWLEE_STORAGE_DIR: dir, ACTOR_WEB_SERVER_PORT: '0', INPUT: JSON.stringify({ urlCount: 1, rateLimitPerMinute: 0 }), INGEST_RATE_LIMIT_PER_MINUTE: '0', ...env });
    const child = spawn(process.execPath, ['--no-node-snapshot', join(ROOT, 'dist', 'main.js')], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (output += s));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    for (let waited = 0; ; waited += 50) {
        if (child.exitCode !== null) throw new Error(`service exited during start:\n${output}`);
        const port = /listening on port (\d+)/.exec(output)?.[1];
        if (port) {
            const url = `http://127.0.0.1:${port}`;
            const ready = await fetch(`${url}/ready`).then((r) => r.status === 200, () => false);
            if (ready) return { child, url, stop: () => (child.kill('SIGTERM'), exited) };
        }
        if (waited > 120_000) {
            child.kill('SIGKILL');
            throw new Error(`service not ready after 120 s:\n${output}`);
        }
        await sleep(50);
    }
}

/** The resident set size of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}

/** Milliseconds as the query benches print them: three significant figures or so. */
export const ms = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

/** p-th percentile (0..100) of a sample, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
    const s = [...values].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}
