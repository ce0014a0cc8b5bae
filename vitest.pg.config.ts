import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { PG_BIN, pgAvailable } from './test/helpers/pg-server.js';
import { ALONE } from './test/layout.js';

// The PostgreSQL pass: the integration-style suites again, each service on a fresh database of one
// throwaway PostgreSQL server (test/helpers/pg-pass.ts, pg-global-setup.ts) through DATABASE_URL,
// in parallel forks as in the default pass, then the ALONE files one at a time (test/layout.ts).
// Left out, and why:
const EXCLUDED = [
    // Pure units, the platform simulator and the Docker image, Chromium, the 512 MB containers:
    // nothing there depends on the storage backend, or it needs its own environment.
    'test/unit/**', 'test/platform/**', 'test/browser/**', 'test/memory/**',
    // They start their own PostgreSQL (and run in the default pass already).
    'test/contract/**', 'test/pg/**', 'test/multi/**',
    // SQLite itself: its query engine, worker pools and slices, opened directly.
    'test/integration/query-big-bodies.test.ts', 'test/integration/query-cancel.test.ts',
    'test/query/body-storage.test.ts', 'test/query/large-bodies.test.ts', 'test/query/pool-limits.test.ts', 'test/query/scan.test.ts',
    'test/query/parallel.test.ts', 'test/query/parallel-count.test.ts', 'test/query/plan.test.ts', 'test/query/parse.test.ts',
    'test/regression/deep-json.test.ts', 'test/regression/export-isolation.test.ts',
    // They read the SQLite file beside the service (rows left per table, the committed watermark)
    // or test its sync modes (STORAGE_SYNC).
    'test/manage/deletion.test.ts', 'test/durability/restart.test.ts', 'test/durability/sigkill.test.ts',
    // Payload files in the local key-value store: with PostgreSQL, payloads are blobs in the database.
    'test/regression/payload-folder.test.ts',
    // It deletes the SQLite folder and restores it from the dataset; a shared database is the truth
    // itself and is never restored from a dataset.
    'test/integration/restore.test.ts',
    // Webhooks in the platform's key-value store: the old single-record list migrated, two runs
    // converging through it. With a database the webhooks are rows in it (test/multi, test/pg).
    'test/manage/platform-webhooks.test.ts',
];

const available = pgAvailable();
if (!available) {
    const message = `PostgreSQL is not installed (no initdb/postgres in ${PG_BIN}; Debian package \`postgresql\`): the PostgreSQL pass of the suite cannot run`;
    // In CI that pass must run.
    if (process.env.CI) throw new Error(message);
    const bar = '!'.repeat(100);
    console.warn(`\n${bar}\n${bar}\n!!\n!! SKIPPED: ${message}.\n!! Only SQLite mode was tested. Install it (apt-get install postgresql) or set PG_BIN.\n!!\n${bar}\n${bar}\n`);
}
process.env.TEST_PG = '1';

const { projects: _defaultPass, ...shared } = base.test ?? {};
const pass = { env: { TEST_PG: '1' }, globalSetup: ['test/helpers/pg-global-setup.ts'] };

export default defineConfig({
    test: {
        ...shared,
        // Without PostgreSQL there is no project and nothing to run (a project would add its own include to this).
        include: [],
        passWithNoTests: !available,
        ...(available
            ? {
                  projects: [
                      { extends: true, test: { ...pass, name: 'pg-pass', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...EXCLUDED, ...ALONE] } },
                      {
                          extends: true,
                          test: { ...pass, name: 'pg-pass-alone', include: ALONE, exclude: [...configDefaults.exclude, ...EXCLUDED], isolate: true, sequence: { groupOrder: 1 }, poolOptions: { forks: { singleFork: true, isolate: true } } },
                      },
                  ],
              }
            : {}),
    },
});
