import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, it } from 'vitest';
import { builtTwin } from '../../src/lib/worker-url.js';

// Workers started from source take their compiled twin in dist/ only while it is current: a test
// must never run a stale build of the code it tests.
describe('a worker started from source runs its built twin only when the build is current', () => {
    const root = mkdtempSync(join(tmpdir(), 'whd-twin-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const file = (path: string, secondsAgo: number): string => {
        const full = join(root, path);
        mkdirSync(join(full, '..'), { recursive: true });
        writeFileSync(full, '');
        const when = new Date(Date.now() - secondsAgo * 1000);
        utimesSync(full, when, when);
        return full;
    };

    it('takes dist/<path>.js when it is newer than every file under src/, and nothing else', () => {
        const source = file('a/src/store/worker.ts', 60);
        file('a/src/lib/other.ts', 50);
        const twin = file('a/dist/store/worker.js', 10);
        assert.equal(builtTwin(pathToFileURL(source))?.href, pathToFileURL(twin).href);
        // Another source changed after the build (here: a module the worker may import).
        const stale = file('b/src/store/worker.ts', 60);
        file('b/src/lib/other.ts', 5);
        file('b/dist/store/worker.js', 10);
        assert.equal(builtTwin(pathToFileURL(stale)), undefined, 'a source newer than the build');
        // Never built.
        assert.equal(builtTwin(pathToFileURL(file('c/src/store/worker.ts', 60))), undefined, 'no dist/');
        // Not under a src/ folder at all.
        assert.equal(builtTwin(pathToFileURL(file('d/lib/worker.ts', 60))), undefined, 'no src/ folder');
    });
});
