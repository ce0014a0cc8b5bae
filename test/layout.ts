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
