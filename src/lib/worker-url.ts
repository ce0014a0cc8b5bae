import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a sibling worker module. Built, it is the .js file beside the caller. From source (tests,
 * benches under tsx) it is the built twin in dist/ when the build is current (builtTwin), else the
 * worker first registers tsx itself: loader hooks do not follow workers on Node 20. Workers get none
 * of the parent's flags: process-wide and V8 flags (--no-node-snapshot, --max-old-space-size, ...)
 * are refused by workers, and these workers need none.
 */
export function startSiblingWorker(base: string, name: string, options: WorkerOptions = {}): Worker {
    if (!base.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, base), { ...options, execArgv: [] });
    const source = new URL(`./${name}.ts`, base);
    const built = builtTwin(source);
    if (built) return new Worker(built, { ...options, execArgv: [] });
    const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`;
    return new Worker(boot, { ...options, eval: true, execArgv: [] });
}

/** Newest modification time of any file under each src/ folder, read once per process. */
const newestBySrc = new Map<string, number>();

function newestUnder(dir: string): number {
    let newest = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
    }
    return newest;
}

/**
 * The compiled twin of a module under src/ (src/a/b.ts → dist/a/b.js), when there is one and no file
 * under src/ is newer than it: a worker started from it skips compiling dozens of modules through
 * tsx, a second or more of CPU per start. `npm run build` rewrites every file of dist/, so a twin
 * older than any source means src/ changed since: the stale build is never run.
 */
export function builtTwin(source: URL): URL | undefined {
    const path = fileURLToPath(source);
    const at = path.lastIndexOf(`${sep}src${sep}`);
    if (at < 0) return undefined;
    const root = path.slice(0, at);
    const twin = join(root, 'dist', relative(join(root, 'src'), path).replace(/\.ts$/, '.js'));
    if (!existsSync(twin)) return undefined;
    const src = join(root, 'src');
    let newest = newestBySrc.get(src);
    if (newest === undefined) newestBySrc.set(src, (newest = newestUnder(src)));
    return statSync(twin).mtimeMs >= newest ? pathToFileURL(twin) : undefined;
}
