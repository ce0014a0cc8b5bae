// Which test file runs where (vitest.config.ts, vitest.pg.config.ts; test/README.md explains the
// layout). A file named nowhere here is an integration file: it runs in parallel forks, each test
// on its own service (port 0, its own storage folder or database). Globs, relative to the root.

/**
 * Pure logic: no service, no process, nothing that runs a script in isolated-vm (an isolate needs
 * --no-node-snapshot, which a thread cannot take; importing the module is fine). They run in
 * threads, which start faster than processes.
 */
export const UNIT = [
    'test/unit/**/*.test.ts', 'src/**/*.test.ts', 'test/query/parse.test.ts', 'test/memory/budget.test.ts',
    'test/platform/lock.test.ts', 'test/platform/packaging.test.ts', 'test/platform/store-page.test.ts', 'test/delivery/ssrf-guard.test.ts',
];

/** The dashboard in Debian's Chromium: a lane of its own (`npm run test:browser`); in the pass, integration files like the others. */
export const BROWSER = ['test/browser/**/*.test.ts'];

/**
 * The PostgreSQL backend's own tests in the default pass (integration files; `npm run test:pg` runs them alone): its stores opened directly, the storage
 * contract on PostgreSQL, several instances on one database. A file that pauses or kills the server
 * starts its own (from a copy of the run's initialised data folder, test/helpers/pg-server.ts); the
 * others take a database of the run's one server.
 */
export const PG_BACKEND = ['test/pg/**/*.test.ts', 'test/contract/postgres.test.ts', 'test/multi/**/*.test.ts'];

/**
 * Suites that measure what other files running beside them would disturb: the peak RSS of a
 * service in a 512 MB container and the free space of a nearly full disk (test/memory), how busy
 * the test process's own event loop is (capture-pressure), which of two PostgreSQL statements
 * racing for milliseconds wins (query-race). They run after everything else, one file at a time,
 * alone (a file also in UNIT, test/memory/budget, is a unit).
 */
export const ALONE = ['test/memory/**/*.test.ts', 'test/delivery/capture-pressure.test.ts', 'test/pg/query-race.test.ts'];

/**
 * Files that take 10 s or more (measured, scripts/slowest-tests.mjs), longest first: they start
 * first, so that no long file starts last and runs alone at the end. Vitest orders by the durations
 * of the previous run when it has them; a fresh clone (CI) has none, and would start files in size
 * order. Durations of 2026-11-28 in the default pass (seconds, on 2 cores): 65, 60, 53, 35, 33, 31,
 * 27, 22, then 21 to 10; the PostgreSQL pass's own long files after them.
 */
export const LONG = [
    'test/multi/instances.test.ts', 'test/pg/query.test.ts', 'test/platform/deadline.test.ts', 'test/multi/replay-jobs.test.ts',
    'test/platform/replay-job-migration.test.ts', 'test/durability/restart.test.ts', 'test/browser/scale.test.ts', 'test/cli/zero-loss.test.ts',
    'test/replay-jobs/restart.test.ts', 'test/contract/postgres.test.ts', 'test/filters/predicate-vs-sqlite.test.ts', 'test/pg/inbox.test.ts',
    'test/replay-jobs/jobs.test.ts', 'test/manage/platform-webhooks.test.ts', 'test/pg/core-claims.test.ts', 'test/platform/converge.test.ts',
    'test/delivery/forward.test.ts', 'test/durability/forward-crash.test.ts', 'test/durability/partial-payload.test.ts', 'test/contract/sqlite.test.ts',
    'test/durability/sigkill.test.ts', 'test/replay/deadline.test.ts', 'test/platform/faults.test.ts', 'test/browser/dashboard.test.ts',
    'test/platform/platform.test.ts', 'test/stream/filters.test.ts', 'test/stream/stream.test.ts', 'test/pg/query-errors.test.ts',
    'test/rules/rules-vs-logs.test.ts', 'test/cli/usage.test.ts', 'test/cli/deliver.test.ts', 'test/multi/listen.test.ts',
];
