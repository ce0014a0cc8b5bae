import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installsOn, lockProblems, type Platform } from './lock-platforms.js';

// The image builds on Alpine (musl) with `npm ci`, so the committed lock must carry the musl
// binaries of every package that ships per-platform builds (rollup, esbuild, …).
const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const alpineX64: Platform = { os: 'linux', cpu: 'x64', libc: 'musl' };
const alpineArm64: Platform = { os: 'linux', cpu: 'arm64', libc: 'musl' };
const debianX64: Platform = { os: 'linux', cpu: 'x64', libc: 'glibc' };

describe('package-lock.json installs the binaries of every platform we build on', () => {
    it('holds the linux-x64-musl and linux-arm64-musl binaries of every per-platform package (the Alpine image), and the glibc ones', () => {
        const lock = read('package-lock.json');
        expect(lockProblems(lock, alpineX64)).toEqual([]);
        expect(lockProblems(lock, alpineArm64)).toEqual([]);
        expect(lockProblems(lock, debianX64)).toEqual([]);
        const packages = Object.keys((JSON.parse(lock) as { packages: Record<string, unknown> }).packages);
        expect(packages).toContain('node_modules/@rollup/rollup-linux-x64-musl');
        expect(packages).toContain('node_modules/@esbuild/linux-x64');
    });

    it('regression: the lock of cd1bc7c (2 of rollup’s platform packages) fails the check for Alpine', () => {
        // Trimmed copy of `git show cd1bc7c:package-lock.json`: every entry with optional
        // dependencies and every entry those resolve to, fields as in the original.
        const old = read('test/platform/fixtures/package-lock.cd1bc7c.json');
        const problems = lockProblems(old, alpineX64);
        expect(problems).toContain('node_modules/rollup: @rollup/rollup-linux-x64-musl is missing from the lock');
        expect(problems).toContain('node_modules/rollup: no optional binary installs on linux-x64-musl');
        expect(problems.filter((p) => p.includes('is missing'))).toHaveLength(24);
        // esbuild's linux-x64 binary has no libc field, so it installs on musl as well.
        expect(problems.some((p) => p.startsWith('node_modules/esbuild'))).toBe(false);
    });

    it('matches os/cpu/libc the way npm does: absent fields match, negations exclude', () => {
        expect(installsOn({ os: ['linux'], cpu: ['x64'], libc: ['musl'] }, alpineX64)).toBe(true);
        expect(installsOn({ os: ['linux'], cpu: ['x64'], libc: ['glibc'] }, alpineX64)).toBe(false);
        expect(installsOn({ os: ['linux'], cpu: ['x64'] }, alpineX64)).toBe(true);
        expect(installsOn({ os: ['darwin'] }, alpineX64)).toBe(false);
        expect(installsOn({ cpu: ['!arm64'] }, alpineX64)).toBe(true);
        expect(installsOn({ cpu: ['!x64'] }, alpineX64)).toBe(false);
        expect(installsOn({}, alpineX64)).toBe(true);
    });
});
