import { defineConfig } from 'vitest/config';

// Tests speak real HTTP to real servers and spawn real processes; they run one file at a time on
// CI's 2 cores so timing-sensitive durability tests are not starved. isolated-vm needs
// --no-node-snapshot in every worker.
export default defineConfig({
    test: {
        include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
        pool: 'forks',
        poolOptions: { forks: { execArgv: ['--no-node-snapshot'], singleFork: false } },
        fileParallelism: false,
        testTimeout: 60_000,
        hookTimeout: 60_000,
        reporters: ['default'],
    },
});
