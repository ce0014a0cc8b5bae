import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage } from '../../src/storage/pg/index.js';
import { pgServerFor } from '../helpers/pg-server.js';
import { matrixDifferential } from '../query/matrix-oracle.js';
import { pgCoreRuns } from './core-pg.js';

// The PostgreSQL side of test/query/matrix-differential.test.ts: the storage opened as the service
// opens it, the events imported through it, every case of the query matrix and the walks held to
// the same JavaScript oracle.

describe.runIf(pgCoreRuns)('the query matrix on PostgreSQL answers as the JavaScript oracle', () => {
    matrixDifferential(2000, async (events) => {
        const server = await pgServerFor('shared');
        const storage = await openPgStorage({ url: await server.createDatabase('matrix'), instanceId: 'matrix', log: silentLogger });
        let imported = 0;
        for (let i = 0; i < events.length; i += 1000) imported += await storage.events.importEvents(events.slice(i, i + 1000));
        assert.equal(imported, events.length);
        return {
            query: (q) => storage.events.query(q),
            close: async () => {
                await storage.close();
                await server.stop();
            },
        };
    });
});
