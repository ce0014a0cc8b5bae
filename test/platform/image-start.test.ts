import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exit } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { runtimeCommand, runtimeCopies, runtimeEnv } from './dockerfile.js';

// The image's runtime stage, rebuilt on disk: what the Dockerfile copies from the builder, with
// dev dependencies pruned as the builder prunes them, and every file newer than dist/ (file times
// after COPY --from are not promised). The image's command must start the service from that tree
// without trying to rebuild, as the process that receives SIGTERM.
const root = fileURLToPath(new URL('../../', import.meta.url));
let app: string;
/** Processes still running when the file ends (a failed test) are killed then. */
const running = new Set<ReturnType<typeof spawn>>();

/** Sets the times of every file under `dir` (node_modules excepted) to `when`. */
function touchTree(dir: string, when: Date): void {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
            if (entry.name !== 'node_modules') touchTree(path, when);
        } else utimesSync(path, when, when);
    }
}

/** The runtime stage's tree: node_modules hard-linked (fast; only deletions touch it), the rest copied. */
function buildRuntimeTree(into: string): void {
    for (const path of runtimeCopies()) {
        const from = join(root, path);
        const to = join(into, path);
        if (path === 'node_modules') {
            expect(spawnSync('cp', ['-al', from, to]).status).toBe(0);
            // npm prune rewrites this file in place: it must not be the checkout's own inode.
            rmSync(join(to, '.package-lock.json'), { force: true });
        } else if (path === 'public' && !existsSync(from)) {
            mkdirSync(to); // the builder creates it when the dashboard is not built (`mkdir -p public`)
        } else {
            cpSync(from, to, { recursive: true });
        }
    }
    // The builder prunes with the lock present; the runtime stage does not receive the lock.
    cpSync(join(root, 'package-lock.json'), join(into, 'package-lock.json'));
    const prune = spawnSync('npm', ['prune', '--omit=dev', '--no-audit', '--no-fund'], { cwd: into, encoding: 'utf8' });
    expect(prune.status, prune.stderr).toBe(0);
    rmSync(join(into, 'package-lock.json'));
}

/** Runs a command in the tree as the platform would (local storage in the app folder, 512 MB). */
function run(argv: string[]): { pid: number; exited: Promise<Exit>; output: () => string; kill: (s: NodeJS.Signals) => void } {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(APIFY_|ACTOR_|CRAWLEE_|npm_)|^INPUT$|^NODE_OPTIONS$/.test(name)) env[name] = value;
    // The image's own ENV lines (NODE_ENV, LISTEN_HOST, …), then what the platform sets.
    Object.assign(env, runtimeEnv(), { NODE_ENV: 'production', ACTOR_MEMORY_MBYTES: '512', ACTOR_WEB_SERVER_PORT: '0', INPUT: JSON.stringify({ rateLimitPerMinute: 0 }) });
    const child = spawn(argv[0]!, argv.slice(1), { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
    running.add(child);
    const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => (running.delete(child), resolve({ code, signal }))));
    return { pid: child.pid!, exited, output: () => output, kill: (s) => child.kill(s) };
}

describe('the image starts with node itself, from a pruned tree where every file looks newer than dist/', () => {
    beforeAll(() => {
        if (!existsSync(join(root, 'dist', 'main.js'))) throw new Error('dist/main.js is missing: run `npx tsc -p tsconfig.build.json` first');
        app = mkdtempSync(join(tmpdir(), 'whd-image-'));
        buildRuntimeTree(app);
        touchTree(app, new Date(Date.now() + 60_000));
        utimesSync(join(app, 'dist', 'main.js'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    }, 120_000);
    afterAll(() => {
        for (const child of running) child.kill('SIGKILL');
        if (app) rmSync(app, { recursive: true, force: true });
    });

    it('has no dev dependencies and every file but node_modules is newer than dist/main.js', () => {
        for (const dev of ['typescript', 'vite', 'vitest']) expect(existsSync(join(app, 'node_modules', dev)), dev).toBe(false);
        for (const prod of ['better-sqlite3', 'isolated-vm', 'express']) expect(existsSync(join(app, 'node_modules', prod)), prod).toBe(true);
        const built = statSync(join(app, 'dist', 'main.js')).mtimeMs;
        expect(statSync(join(app, 'INPUT_SCHEMA.json')).mtimeMs).toBeGreaterThan(built);
        expect(statSync(join(app, 'package.json')).mtimeMs).toBeGreaterThan(built);
    });

    it('runs the Dockerfile CMD: the service itself is the process (exec), /ready answers 200, SIGTERM exits 0', async () => {
        const cmd = runtimeCommand();
        expect(cmd.join(' ')).not.toMatch(/\bnpm\b/);
        const svc = run(cmd);
        const died = svc.exited.then((e) => Promise.reject(new Error(`exited with ${JSON.stringify(e)}\n${svc.output()}`)));
        died.catch(() => undefined);
        const port = await Promise.race([died, until('the port line', async () => /listening on port (\d+)/.exec(svc.output())?.[1], { timeoutMs: 45_000 })]);
        const ready = await Promise.race([died, until('GET /ready → 200', async () => {
            const res = await fetch(`http://127.0.0.1:${port}/ready`);
            await res.body?.cancel();
            return res.status === 200 ? res.status : undefined;
        }, { timeoutMs: 30_000 })]);
        expect(ready).toBe(200);
        // Without a key, only LISTEN_HOST keeps the image reachable through its published port.
        expect(svc.output()).toMatch(/listening on port \d+ at (::|0\.0\.0\.0)(?![\d:])/);
        // The pid we spawned (sh) was replaced by node running the service, with the heap for 512 MB.
        const argv = readFileSync(`/proc/${svc.pid}/cmdline`, 'utf8').split('\0');
        expect(argv).toContain('dist/main.js');
        expect(argv).toContain('--no-node-snapshot');
        expect(readFileSync(`/proc/${svc.pid}/environ`, 'utf8').split('\0')).toContain('NODE_OPTIONS=--max-old-space-size=256');
        expect(svc.output()).not.toMatch(/\[build\]/);
        svc.kill('SIGTERM');
        expect(await svc.exited).toEqual({ code: 0, signal: null });
    }, 120_000);

    it('regression: `npm start` (the old image command) tries to rebuild in that tree and exits 1 without TypeScript', async () => {
        const svc = run(['npm', 'start']);
        const exit = await svc.exited;
        expect(svc.output()).toMatch(/\[build\] TypeScript is not installed/);
        expect(exit.code).toBe(1);
    });
});
