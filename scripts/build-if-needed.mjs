#!/usr/bin/env node
// Runs before `npm start`: compiles the TypeScript sources when dist/ is missing or stale.
// Stale means: some file under src/, INPUT_SCHEMA.json or a tsconfig*.json is newer than dist/main.js.
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = join(root, 'dist', 'main.js');
const rel = (p) => relative(root, p) || '.';

const mtimeOf = (path) => {
    try {
        return statSync(path).mtimeMs;
    } catch {
        return undefined;
    }
};

/** Returns the first file under `dir` (recursively) modified after `since`, or undefined. */
const findNewer = (dir, since) => {
    let entries;
    try {
        entries = readdirSync(dir, { withFileTypes: true });
    } catch {
        return undefined; // no src/ (e.g. a production image): nothing to compare
    }
    for (const entry of entries) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
            const found = findNewer(path, since);
            if (found) return found;
        } else if ((mtimeOf(path) ?? 0) > since) {
            return path;
        }
    }
    return undefined;
};

const staleReason = () => {
    const built = mtimeOf(target);
    if (built === undefined) return `${rel(target)} is missing`;
    if (built === 0) return 'the previous build failed';
    const configs = readdirSync(root)
        .filter((name) => name === 'INPUT_SCHEMA.json' || /^tsconfig.*\.json$/.test(name))
        .map((name) => join(root, name));
    for (const file of configs) {
        if ((mtimeOf(file) ?? 0) > built) return `${rel(file)} changed`;
    }
    const newer = findNewer(join(root, 'src'), built);
    return newer ? `${rel(newer)} changed` : undefined;
};

const reason = staleReason();
if (reason === undefined) {
    buildDashboard();
    process.exit(0);
}

console.log(`[build] Building with tsc -p tsconfig.build.json (${reason})...`);

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
    console.error('[build] TypeScript is not installed: run `npm install` first.');
    process.exit(1);
}

const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
    shell: false,
});

const failed = result.error !== undefined || result.status !== 0;
if (failed) {
    // tsc may have emitted output despite errors; age it so the next start builds again.
    if (existsSync(target)) utimesSync(target, 0, 0);
    if (result.error) console.error(`[build] Could not run tsc: ${result.error.message}`);
    else if (result.signal) console.error(`[build] tsc was stopped by ${result.signal}`);
    else console.error(`[build] Build failed (tsc exited with ${result.status}).`);
    process.exit(typeof result.status === 'number' && result.status !== 0 ? result.status : 1);
}

if (!existsSync(target)) {
    console.error(`[build] tsc finished but ${rel(target)} was not produced.`);
    process.exit(1);
}

buildDashboard();

/** Builds the dashboard (web/ → public/) when public/index.html is missing or older than a file under web/. */
function buildDashboard() {
    const page = join(root, 'public', 'index.html');
    const built = mtimeOf(page);
    const newer = built === undefined ? undefined : findNewer(join(root, 'web'), built);
    if (built !== undefined && newer === undefined) return;
    const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
    if (!existsSync(vite)) {
        // A production image ships public/ already built and has no vite.
        if (built === undefined) console.error('[build] The dashboard is not built and vite is not installed: run `npm install`.');
        return;
    }
    console.log(`[build] Building the dashboard (${built === undefined ? 'public/index.html is missing' : `${rel(newer)} changed`})...`);
    const web = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit', shell: false });
    if (web.error !== undefined || web.status !== 0) {
        console.error('[build] The dashboard build failed.');
        process.exit(typeof web.status === 'number' && web.status !== 0 ? web.status : 1);
    }
}
