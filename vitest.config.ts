import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative, sep } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { ALONE, BROWSER, PG_BACKEND, UNIT } from './test/layout.js';

// The default pass (SQLite mode), in projects (test/layout.ts says which file goes where, and why):
// unit files in threads; every other file (integration, browser, the PostgreSQL backend's own) in
// parallel forks, each test on its own service (port 0, its own storage); then the ALONE files, one
// at a time, with nothing beside them. Most of a test's time is waiting on sockets, processes and
// disks, so one fork more than there are cores keeps both busy. isolated-vm needs
// --no-node-snapshot in every process.
// One forks project, not one per kind: with isolate: false, vitest runs a pass's projects one after
// the other, each waiting for its last file to end, so a project's long file ran with idle cores
// beside it (measured: a 35 s file alone at the end of the PostgreSQL backend's project).
// Forked files share their fork's module cache (isolate: false): each file would otherwise import
// the whole service again (~1.2 s of CPU each, 195 s of a 400 s pass); no file mocks a module,
// stubs the environment or keeps state at module level, and every service is closed by its file.
// Unit files stay isolated in threads (cheap to start). TEST_FORKS overrides the number of forks.
const forks = Number(process.env.TEST_FORKS) || availableParallelism() + 1;
const exclude = (...lists: string[][]): string[] => [...configDefaults.exclude, ...lists.flat()];
/** `npm run test:integration` (TEST_LANE=integration) leaves the browser and PostgreSQL backend files to their own lanes. */
const laneOut = process.env.TEST_LANE === 'integration' ? [...BROWSER, ...PG_BACKEND] : [];
/** The run's one PostgreSQL server, for the projects with files that use PostgreSQL. */
const PG_SETUP = 'test/helpers/pg-global-setup.ts';

/**
 * The longest files first, by the durations of a measured run (test/durations.json, written by
 * `npm run test:slowest -- --write test/durations.json` after `npm test`), so that no long file
 * starts last and runs alone at the end. Vitest keeps timings of its own only in node_modules of a
 * machine that ran before: a fresh clone (CI) would start files in size order. A file the table
 * does not know yet is taken for a middling one.
 */
const DURATIONS = JSON.parse(readFileSync(new URL('./test/durations.json', import.meta.url), 'utf8')) as Record<'sqlite' | 'pg', Record<string, number>>;
const UNKNOWN_S = 5;
class LongFirst extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
        const seconds = (f: TestSpecification): number => {
            const table = f.project.name.startsWith('pg-pass') ? DURATIONS.pg : DURATIONS.sqlite;
            return table[relative(f.project.config.root, f.moduleId).split(sep).join('/')] ?? UNKNOWN_S;
        };
        const sorted = await super.sort(files);
        return sorted.map((f, i) => ({ f, i, s: seconds(f) })).sort((a, b) => b.s - a.s || a.i - b.i).map(({ f }) => f);
    }
}

export default defineConfig({
    test: {
        // No include here: a project that extends this config would add its own to it.
        pool: 'forks',
        isolate: false,
        poolOptions: {
            forks: { execArgv: ['--no-node-snapshot'], maxForks: forks, minForks: forks, isolate: false },
            threads: { maxThreads: availableParallelism(), minThreads: 1 },
        },
        sequence: { sequencer: LongFirst },
        testTimeout: 60_000,
        hookTimeout: 60_000,
        reporters: ['default'],
        projects: [
            { extends: true, test: { name: 'unit', include: UNIT, pool: 'threads', isolate: true } },
            { extends: true, test: { name: 'integration', exclude: exclude(UNIT, ALONE, laneOut), include: ['test/**/*.test.ts'], globalSetup: [PG_SETUP] } },
            {
                extends: true,
                test: { name: 'alone', include: ALONE, exclude: exclude(UNIT), globalSetup: [PG_SETUP], isolate: true, sequence: { groupOrder: 1 }, poolOptions: { forks: { singleFork: true, isolate: true } } },
            },
        ],
    },
});
