import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, rmdir, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import type { Logger } from '../../src/lib/log.js';
import { Metrics } from '../../src/lib/metrics.js';
import { DatasetExporter, EXPORT_BATCH } from '../../src/storage/apify/dataset-export.js';
import { LocalDatasetSink } from '../../src/storage/apify/dataset-sink.js';
import { FileBlobStore } from '../../src/storage/blob/file-blob-store.js';
import type { Storage } from '../../src/storage/roles.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { SINK_POSITION_KEY } from '../../src/storage/meta-keys.js';
import { storedEvent } from '../query/seed.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The store, sink and exporter of one run on `root`, the sink opened at the committed position as compose.ts does. */
async function openRun(root: string): Promise<{ store: Storage; sink: LocalDatasetSink; exporter: DatasetExporter }> {
    const store = await openSqliteStorage({ file: join(root, 'events.sqlite'), queryWorkers: 0 });
    const position = await store.meta.getMeta(SINK_POSITION_KEY);
    const sink = new LocalDatasetSink(join(root, 'datasets', 'default'), position === undefined ? undefined : Number(position), EXPORT_BATCH);
    const exporter = new DatasetExporter(sink, store, new Metrics(), quiet, { blobs: new FileBlobStore(join(root, 'payloads')), baseUrl: () => 'http://svc' });
    return { store, sink, exporter };
}

describe('local dataset sink', () => {
    it('writes one numbered JSON file per item and continues numbering after a restart', async () => {
        const dir = join(await mkdtemp(join(tmpdir(), 'whd-ds-')), 'datasets', 'default');
        try {
            const first = new LocalDatasetSink(dir, undefined, 10);
            await first.push([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
            assert.deepEqual((await readdir(dir)).sort(), ['000000001.json', '000000002.json', '000000003.json']);
            assert.deepEqual(JSON.parse(await readFile(join(dir, '000000002.json'), 'utf8')), { id: 'b' });
            const second = new LocalDatasetSink(dir, undefined, 10);
            await second.push([{ id: 'd' }]);
            assert.deepEqual((await second.read(0, 10)).map((i) => i.id), ['a', 'b', 'c', 'd']);
            assert.deepEqual((await second.read(2, 1)).map((i) => i.id), ['c']);
            assert.equal(second.position(), '5');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('drops the items of a push that was never committed, and continues from the committed position', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-ds-'));
        try {
            const sink = new LocalDatasetSink(dir, undefined, 3);
            await sink.push([{ id: 'a' }, { id: 'b' }]);
            const committed = sink.position();
            await sink.push([{ id: 'c' }, { id: 'd' }, { id: 'e' }]);
            await writeFile(join(dir, '000000004.json'), '{"trunc'); // as a kill mid-write would leave it
            const reopened = new LocalDatasetSink(dir, Number(committed), 3);
            assert.deepEqual((await readdir(dir)).sort(), ['000000001.json', '000000002.json']);
            await reopened.push([{ id: 'c' }]);
            assert.deepEqual((await reopened.read(0, 10)).map((i) => i.id), ['a', 'b', 'c']);
            await assert.rejects(reopened.push([{}, {}, {}, {}]), /exceeds the batch/);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('regression: a kill inside the first push of a new storage left its items, and the restart pushed the batch again', async () => {
        // No sink position was committed before the first batch was, so the restart took the
        // files of that unacknowledged push for committed ones (CI: 492 items for 300 events).
        const root = await mkdtemp(join(tmpdir(), 'whd-ds-'));
        const dir = join(root, 'datasets', 'default');
        try {
            let run = await openRun(root);
            const ids = Array.from({ length: 33 }, (_, i) => `e${i}`);
            for (const id of ids) await run.store.events.append(storedEvent({ id, webhookId: 'wh_a' }));
            // Item 33's path is a directory: the push writes items 1..32 (one write group), then
            // fails, as a kill inside it would leave things: files written, the batch not committed.
            const blocker = join(dir, '000000033.json');
            await mkdir(blocker, { recursive: true });
            assert.deepEqual(await run.exporter.flushOnce(EXPORT_BATCH), { moved: 0, failed: true });
            assert.equal((await readdir(dir)).length, 33, 'items 1..32 and the blocker');
            await run.store.close();
            await rmdir(blocker);

            run = await openRun(root);
            assert.deepEqual(await run.exporter.flushOnce(EXPORT_BATCH), { moved: 33, failed: false });
            assert.equal((await readdir(dir)).length, 33, 'one file per event');
            assert.deepEqual((await run.sink.read(0, 100)).map((i) => i.id), ids);
            assert.equal(await run.store.meta.getMeta(SINK_POSITION_KEY), '34');
            await run.store.close();
        } finally {
            await rm(root, { recursive: true, force: true });
        }
    });

    it('drops every uncommitted item on open, also a batch retried past another after its commit failed', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-ds-'));
        try {
            const sink = new LocalDatasetSink(dir, undefined, 3);
            await sink.push([{ id: 'a' }]);
            const committed = Number(sink.position());
            await sink.push([{ id: 'b' }, { id: 'c' }, { id: 'd' }]);
            await sink.push([{ id: 'b' }, { id: 'c' }, { id: 'd' }]);
            await rm(join(dir, '000000003.json')); // a gap, as a kill mid-group can leave
            new LocalDatasetSink(dir, committed, 3);
            assert.deepEqual((await readdir(dir)).sort(), ['000000001.json']);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    for (const n of [0, 1, 2, 3, 7, 8, 9, 100, 1000]) {
        it(`finds the first free index after ${n} items`, async () => {
            const dir = await mkdtemp(join(tmpdir(), 'whd-ds-'));
            try {
                await mkdir(dir, { recursive: true });
                for (let i = 1; i <= n; i++) await writeFile(join(dir, `${String(i).padStart(9, '0')}.json`), '{}');
                assert.equal(LocalDatasetSink.firstFreeIndex(dir), n + 1);
            } finally {
                await rm(dir, { recursive: true, force: true });
            }
        });
    }
});
