import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { systemClock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/log.js';
import { openActorStorage } from '../../src/storage/apify/actor-storage.js';
import { Deadlines } from '../../src/storage/apify/deadline.js';
import { KvWebhookStore } from '../../src/storage/apify/webhook-registry.js';
import { openStorage, sqliteFile } from '../../src/storage/open-storage.js';
import type { Readiness } from '../../src/storage/readiness.js';
import { pgServerFor } from '../helpers/pg-server.js';
import { pgCoreRuns } from './core-pg.js';

// PostgreSQL mode as openStorage completes it (storage/shared-bundle.ts): the database is the one
// truth; the actor's storages only receive the export. SQLite mode's side: test/unit/open-storage.test.ts.

describe.runIf(pgCoreRuns)('PostgreSQL mode, complete (openStorage)', () => {
    it('keeps webhooks and payloads itself, remembers no deleted ids elsewhere, reads again what other instances change, and neither restores nor follows the dataset', async () => {
        const server = await pgServerFor('shared');
        const dir = await mkdtemp(join(tmpdir(), 'whd-pg-mode-'));
        try {
            const actor = await openActorStorage(false, 'pg-mode', dir, silentLogger, systemClock, new Deadlines());
            const dataset = await actor.openDataset(undefined);
            await dataset.push([{ id: 'ev-in-dataset', webhookId: 'wh_a', timestamp: new Date(Date.UTC(2025, 0, 1)).toISOString(), method: 'POST', body: 'x' }]);
            const storage = await openStorage({
                database: { url: await server.createDatabase('mode'), source: 'DATABASE_URL' },
                storageDir: dir, sqlite: {}, actor, log: silentLogger, onPlatform: true, timings: { webhookPollMs: 111, forwardPollMs: 222 },
            });
            try {
                assert.equal(storage.backend, 'postgres');
                assert.ok(!(storage.webhooks instanceof KvWebhookStore), 'webhooks are rows of the database');
                await storage.webhooks.create({ id: 'wh_pg', createdAt: new Date(0).toISOString(), expiresAt: new Date(Date.UTC(2100, 0, 1)).toISOString() });
                assert.deepEqual((await storage.webhooks.list()).map((w) => w.id), ['wh_pg']);
                assert.notEqual(storage.blobs, actor.blobs, 'payloads are chunks in the database');
                assert.equal(storage.deletions, undefined);
                assert.equal(storage.pollWebhooksMs, 111);
                assert.equal(storage.forwardWakeMs, 222);
                const readiness: Readiness = { accepting: true };
                await (await storage.startBackground({ dataset, publish: () => assert.fail('nothing is merged'), readiness })).stop();
                assert.equal(readiness.catchUp, undefined, 'a new database is not restored from the dataset');
                assert.equal(await storage.events.webhookOf('ev-in-dataset'), undefined);
                assert.equal(existsSync(sqliteFile(dir)), false, 'no SQLite file');
            } finally {
                await storage.close();
            }
        } finally {
            await server.stop();
            await rm(dir, { recursive: true, force: true });
        }
    }, 60_000);
});
