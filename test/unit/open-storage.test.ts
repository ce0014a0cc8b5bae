import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startService } from '../../src/compose.js';
import { DEFAULT_TIMINGS } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/log.js';
import { openActorStorage, type ActorStorage } from '../../src/storage/apify/actor-storage.js';
import { Deadlines } from '../../src/storage/apify/deadline.js';
import { KvWebhookStore } from '../../src/storage/apify/webhook-registry.js';
import { KvDeletionLog } from '../../src/storage/deletion-log.js';
import { checkDatabaseUrl, chooseDatabase, openStorage, sqliteFile, type OpenStorageOptions, type StorageBundle } from '../../src/storage/open-storage.js';
import type { Readiness } from '../../src/storage/readiness.js';
import { until } from '../helpers/until.js';

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

    /** SQLite mode in `dir`, with the actor's local storages there. */
    const openSqlite = async (dir: string, actor: ActorStorage, over: Partial<OpenStorageOptions> = {}): Promise<StorageBundle> =>
        openStorage({ database: undefined, storageDir: dir, sqlite: { queryWorkers: 0 }, actor, log: silentLogger, ...over });
    const localActor = (dir: string): Promise<ActorStorage> => openActorStorage(false, 'test', dir, silentLogger, systemClock, new Deadlines());

    it('without a database opens SQLite: every role answers, no foreign events; webhooks, payloads and deleted ids in the actor\'s storages, nothing polled locally', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-pick-'));
        const actor = await localActor(dir);
        const storage = await openSqlite(dir, actor);
        try {
            assert.equal(storage.backend, 'sqlite');
            assert.equal(storage.health.backend, 'sqlite');
            assert.ok(storage.webhooks instanceof KvWebhookStore);
            assert.equal(storage.blobs, actor.blobs);
            assert.ok(storage.deletions instanceof KvDeletionLog);
            assert.equal(storage.pollWebhooksMs, 0, 'no other run changes the webhooks of a local store');
            assert.equal(storage.forwardWakeMs, 0, 'only this process adds to its forwarding backlog');
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

    it('SQLite mode on the platform polls the webhook store that Standby runs share', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-pick-'));
        const storage = await openSqlite(dir, await localActor(dir), { onPlatform: true, timings: { ...DEFAULT_TIMINGS, webhookPollMs: 1234 } });
        try {
            assert.equal(storage.pollWebhooksMs, 1234);
            assert.equal(storage.forwardWakeMs, 0);
        } finally {
            await storage.close();
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('a new SQLite file is rebuilt from the dataset in the background without the deleted captures; an existing one is not', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-pick-'));
        try {
            const actor = await localActor(dir);
            const dataset = await actor.openDataset(undefined);
            const item = (id: string): Record<string, unknown> => ({ id, webhookId: 'wh_a', timestamp: new Date(Date.UTC(2025, 0, 1)).toISOString(), method: 'POST', body: `body of ${id}` });
            await dataset.push([item('ev-kept'), item('ev-deleted')]);
            await new KvDeletionLog(actor.kvs).record(['ev-deleted']);
            assert.equal(existsSync(sqliteFile(dir)), false);
            const first = await openSqlite(dir, actor);
            const readiness: Readiness = { accepting: true };
            const work = await first.startBackground({ dataset, publish: () => undefined, readiness });
            await until('the restore finished', () => readiness.catchUp?.done === true);
            assert.equal(readiness.catchUp?.imported, 1);
            assert.equal(await first.events.webhookOf('ev-kept'), 'wh_a');
            assert.equal(await first.events.webhookOf('ev-deleted'), undefined, 'a deleted capture does not come back');
            await work.stop();
            await first.close();
            // The file exists now and its restore finished: the next start does not restore.
            const second = await openSqlite(dir, actor);
            const again: Readiness = { accepting: true };
            await (await second.startBackground({ dataset, publish: () => undefined, readiness: again })).stop();
            assert.equal(again.catchUp, undefined);
            await second.close();
        } finally {
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
