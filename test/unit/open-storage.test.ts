import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startService } from '../../src/compose.js';
import { ConfigError } from '../../src/errors.js';
import { consoleLogger } from '../../src/lib/log.js';
import { checkDatabaseUrl, chooseDatabase, openStorage } from '../../src/storage/open-storage.js';

const SECRET = 's3cr3t-pw';

describe('the backend picker (storage/open-storage.ts)', () => {
    it('takes DATABASE_URL over the databaseUrl input, ignores blanks, and without either keeps SQLite', () => {
        assert.deepEqual(chooseDatabase('postgres://a/env', 'postgres://a/input'), { url: 'postgres://a/env', source: 'DATABASE_URL' });
        assert.deepEqual(chooseDatabase('  ', 'postgres://a/input'), { url: 'postgres://a/input', source: 'input field "databaseUrl"' });
        assert.equal(chooseDatabase(undefined, ''), undefined);
        assert.equal(chooseDatabase(undefined, undefined), undefined);
    });

    it('refuses a URL that is not PostgreSQL, naming where it came from and never echoing it', () => {
        for (const url of [`mysql://user:${SECRET}@db/x`, `user:${SECRET}@db`]) {
            assert.throws(() => checkDatabaseUrl({ url, source: 'DATABASE_URL' }), (error: unknown) => {
                assert.ok(error instanceof ConfigError);
                assert.match(error.message, /^DATABASE_URL: /);
                assert.ok(!error.message.includes(SECRET), error.message);
                return true;
            });
        }
        assert.doesNotThrow(() => checkDatabaseUrl({ url: `postgresql://user:${SECRET}@db:5432/x`, source: 'DATABASE_URL' }));
    });

    it('without a database opens SQLite: every role answers, no foreign events, webhooks and blobs left to the actor storage', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-pick-'));
        const storage = await openStorage({ database: undefined, log: consoleLogger, sqlite: { file: join(dir, 'events.sqlite'), queryWorkers: 0 } });
        try {
            assert.equal(storage.backend, 'sqlite');
            assert.equal(storage.health.backend, 'sqlite');
            assert.equal(storage.webhooks, undefined);
            assert.equal(storage.blobs, undefined);
            assert.equal(storage.health.healthy(), true);
            assert.equal(storage.health.problem(), undefined);
            let calls = 0;
            const off = storage.feed.onForeignEvents(() => calls++);
            await storage.meta.setMeta('k', 'v');
            assert.equal(await storage.meta.getMeta('k'), 'v');
            off();
            assert.equal(calls, 0);
        } finally {
            await storage.close();
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('a service given a databaseUrl input that is not PostgreSQL does not start, and its error does not show the URL', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-pick-'));
        try {
            await assert.rejects(startService({ input: { databaseUrl: `mysql://u:${SECRET}@db/x` }, env: { CRAWLEE_STORAGE_DIR: dir }, port: 0 }), (error: unknown) => {
                assert.ok(error instanceof ConfigError);
                assert.match(error.message, /^input field "databaseUrl": must start with postgres:\/\//);
                assert.ok(!error.message.includes(SECRET));
                return true;
            });
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });
});
