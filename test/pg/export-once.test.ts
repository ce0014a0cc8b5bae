import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import type { Logger } from '../../src/lib/log.js';
import { Metrics } from '../../src/lib/metrics.js';
import { DatasetExporter, EXPORT_BATCH, ISOLATE_AFTER } from '../../src/storage/apify/dataset-export.js';
import type { DatasetSink } from '../../src/storage/apify/dataset-sink.js';
import { newEvent } from '../contract/factory.js';
import { pgCoreRuns, useCoreServer } from './core-pg.js';
import { until } from '../helpers/until.js';

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The platform dataset (the outside world): takes every push, and runs `after` once it took one. */
class RecordingSink implements DatasetSink {
    readonly pushes: string[][] = [];
    after: (() => Promise<void>) | undefined;
    async push(items: Record<string, unknown>[]): Promise<void> {
        this.pushes.push(items.map((item) => String(item.id)));
        const after = this.after;
        this.after = undefined;
        await after?.();
    }
    async read(): Promise<Record<string, unknown>[]> {
        return [];
    }
    get ids(): string[] {
        return this.pushes.flat();
    }
}

/** Export attempts until one goes through once the database is back; how many events they moved. */
async function exportedOnceBack(exporter: DatasetExporter): Promise<number> {
    let moved = 0;
    await until('the export goes through', async () => {
        const result = await exporter.flushOnce(EXPORT_BATCH);
        moved += result.moved;
        return !result.failed && moved > 0;
    }, 20_000);
    return moved;
}

describe.skipIf(!pgCoreRuns)('dataset export on PostgreSQL: the database lost between a push and its watermark', () => {
    const pg = useCoreServer('own');

    for (const mode of ['batch', 'item by item'] as const) {
        it(`(${mode}) the batch the dataset took is not pushed again once the database is back, and what came after goes once`, async () => {
            const url = await pg.server.createDatabase();
            const store = await pg.open(url, `export-${mode === 'batch' ? 'b' : 'i'}`);
            for (let i = 0; i < 5; i++) await store.events.append(newEvent({ id: `e${i}` }));
            const sink = new RecordingSink();
            const blobs = store.blobs;
            assert.ok(blobs, 'the PostgreSQL storage keeps payloads');
            const exporter = new DatasetExporter(sink, store, new Metrics(), quiet, { blobs, baseUrl: () => 'http://svc' });
            // The dataset takes the batch; the database goes away before the watermark is committed.
            sink.after = () => pg.server.pause();
            let failed = 0;
            assert.deepEqual(await exporter.flushOnce(EXPORT_BATCH), { moved: 0, failed: true });
            failed++;
            assert.deepEqual(sink.ids, ['e0', 'e1', 'e2', 'e3', 'e4']);
            if (mode === 'item by item') {
                // More failed attempts while the database is away: the next one goes item by item.
                while (failed < ISOLATE_AFTER) {
                    assert.equal((await exporter.flushOnce(EXPORT_BATCH)).failed, true);
                    failed++;
                }
            }
            await pg.server.resume();
            await until('the store reconnects', () => store.health.healthy(), 20_000);
            for (let i = 5; i < 8; i++) await store.events.append(newEvent({ id: `e${i}` }));
            const moved = await exportedOnceBack(exporter);
            assert.equal(moved, 8, 'every event is exported, the first five by their watermark alone');
            assert.deepEqual(sink.ids, ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'], 'each event went to the dataset once');
            // After the outage's failed attempts the export went as asked: in one batch, or item by item.
            assert.deepEqual(sink.pushes.slice(1), mode === 'batch' ? [['e5', 'e6', 'e7']] : [['e5'], ['e6'], ['e7']]);
            assert.deepEqual(await exporter.flushOnce(EXPORT_BATCH), { moved: 0, failed: false });
            assert.equal((await store.health.stats()).outboxBacklog, 0);
        }, 60_000);
    }

    it('rows another instance gave up between the rows already pushed are still exported, once', async () => {
        const url = await pg.server.createDatabase();
        const a = await pg.open(url, 'export-a');
        const c = await pg.open(url, 'export-c');
        // Positions interleave: c's capture falls between a's.
        await a.events.append(newEvent({ id: 'a0' }));
        await a.events.append(newEvent({ id: 'a1' }));
        await c.events.append(newEvent({ id: 'c0' }));
        await a.events.append(newEvent({ id: 'a2' }));
        const sink = new RecordingSink();
        const blobs = a.blobs;
        assert.ok(blobs);
        const exporter = new DatasetExporter(sink, a, new Metrics(), quiet, { blobs, baseUrl: () => 'http://svc' });
        sink.after = () => pg.server.pause();
        assert.deepEqual(await exporter.flushOnce(EXPORT_BATCH), { moved: 0, failed: true });
        assert.deepEqual(sink.ids, ['a0', 'a1', 'a2'], 'a exports its own captures; c is alive and keeps its own');
        await pg.server.resume();
        await until('both stores reconnect', () => a.health.healthy() && c.health.healthy(), 20_000);
        // c leaves: its unexported capture is anyone's, and a's next batch takes it, between a1 and a2.
        await c.close();
        const moved = await exportedOnceBack(exporter);
        assert.equal(moved, 4);
        assert.deepEqual(sink.ids, ['a0', 'a1', 'a2', 'c0'], 'c0 was pushed, and a0-a2 not again');
        assert.equal((await a.health.stats()).outboxBacklog, 0);
    }, 60_000);
});
