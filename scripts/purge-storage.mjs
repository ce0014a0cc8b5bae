#!/usr/bin/env node
// Used by `npm run start:fresh`: deletes the local storage folder so the service starts empty,
// keeping only the run input (key_value_stores/default/INPUT.json).
// Folder: CRAWLEE_STORAGE_DIR, else APIFY_LOCAL_STORAGE_DIR, else ./storage (relative to the working directory).
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const pick = (...names) => names.map((n) => process.env[n]).find((v) => v !== undefined && v !== '');
const cwd = process.cwd();
const storageDir = resolve(cwd, pick('CRAWLEE_STORAGE_DIR', 'APIFY_LOCAL_STORAGE_DIR') ?? './storage');
const keepRel = join('key_value_stores', 'default', 'INPUT.json');
const keep = join(storageDir, keepRel);
const show = (p) => relative(cwd, p) || '.';

// Refuse folders whose removal would take the project (or more) with it.
const isSelfOrAncestor = (dir, of) => of === dir || of.startsWith(dir.endsWith(sep) ? dir : dir + sep);
if (isSelfOrAncestor(storageDir, cwd) || storageDir === resolve('/')) {
    console.error(`[purge] Refusing to purge ${storageDir}: it is the working directory or one of its parents.`);
    process.exit(1);
}

if (!existsSync(storageDir)) {
    console.log(`[purge] ${show(storageDir)} does not exist: nothing to remove.`);
    process.exit(0);
}
if (!statSync(storageDir).isDirectory()) {
    console.error(`[purge] ${storageDir} is not a folder.`);
    process.exit(1);
}

let removed = 0;
/** Removes everything in `dir` except the entries on the path to the kept file. */
const purge = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (path === keep) continue;
        if (entry.isDirectory() && !entry.isSymbolicLink() && isSelfOrAncestor(path, keep)) {
            purge(path);
            continue;
        }
        rmSync(path, { recursive: true, force: true });
        removed += 1;
        console.log(`[purge] Removed ${show(path)}${entry.isDirectory() ? '/' : ''}`);
    }
};
purge(storageDir);

const kept = existsSync(keep) ? `; kept ${show(keep)}` : '';
console.log(`[purge] ${removed === 0 ? 'Nothing to remove' : `Removed ${removed} item(s)`} in ${show(storageDir)}${kept}.`);
