import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { pgPass } from '../helpers/pg-pass.js';
import { matrixDifferential } from './matrix-oracle.js';

// Today's answers of the SQLite store on every case of the query matrix (bench/query-matrix.ts: pages,
// every filter in offset mode with its total and under every sort both ways in cursor mode, body
// substrings), plus cursor walks to the end and offset pages under every sort, held to an answer
// computed in JavaScript from the same events. New indexes and plans must not change one of them.

describe.skipIf(pgPass)('the query matrix on SQLite answers as the JavaScript oracle', () => {
    matrixDifferential(2000, async (events) => {
        const dir = await mkdtemp(join(tmpdir(), 'matrix-'));
        const store = await SqliteEventStore.open({ file: join(dir, 'events.sqlite'), queryWorkers: 2 });
        assert.equal(await store.importEvents(events), events.length);
        return {
            query: (q) => store.query(q),
            close: async () => {
                await store.close();
                await rm(dir, { recursive: true, force: true });
            },
        };
    });
});
