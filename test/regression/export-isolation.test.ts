import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import type { Logger } from '../../src/lib/log.js';
import { Metrics } from '../../src/lib/metrics.js';
import { DatasetExporter, EXPORT_BATCH, EXPORT_BATCH_BYTES, EXPORT_SLICE, retryDelayMs } from '../../src/storage/apify/dataset-export.js';
import type { DatasetSink } from '../../src/storage/apify/dataset-sink.js';
import { FileBlobStore } from '../../src/storage/blob/file-blob-store.js';
import type { Storage } from '../../src/storage/roles.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { storedEvent } from '../query/seed.js';

// The platform dataset is the outside world here: a sink that fails the way its API can.
class ScriptedSink implements DatasetSink {
    readonly items: Record<string, unknown>[] = [];
    readonly pushes: number[] = [];
    constructor(private readonly refuse: (items: Record<string, unknown>[], attempt: number) => string | undefined) {}
    async push(items: Record<string, unknown>[]): Promise<void> {
        this.pushes.push(items.length);
        const reason = this.refuse(items, this.pushes.length);
        if (reason) throw new Error(reason);
        this.items.push(...items);
    }
    async read(): Promise<Record<string, unknown>[]> {
        return [];
    }
}

const quiet: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const text = (id: string, bytes: Buffer) => storedEvent({ id, webhookId: 'wh_a', bodyKind: 'text', bodyRaw: bytes, size: bytes.length, contentType: 'text/plain' });

describe('dataset export isolates bad items and bounds its batches', () => {
    let dir: string;
    let store: Storage;
    let blobs: FileBlobStore;
    beforeEach(async () => {
        dir = await mkdtemp(join(tmpdir(), 'whd-export-'));
        store = await openSqliteStorage({ file: join(dir, 'events.sqlite'), queryWorkers: 0 });
        blobs = new FileBlobStore(join(dir, 'payloads'));
    });
    afterEach(async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
    });
    const exporter = (sink: DatasetSink, metrics = new Metrics()) => new DatasetExporter(sink, store, metrics, quiet, { blobs, baseUrl: () => 'http://svc' });

    it('backs off 1 s doubling to a 60 s ceiling', () => {
        assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 12].map(retryDelayMs), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    });

    it('regression: a transient dataset error is retried and nothing is lost or repeated', async () => {
        for (let i = 0; i < 5; i++) await store.events.append(text(`e${i}`, Buffer.from(`body ${i}`)));
        const sink = new ScriptedSink((_items, attempt) => (attempt <= 2 ? 'socket hang up' : undefined));
        const metrics = new Metrics();
        const ex = exporter(sink, metrics);
        assert.deepEqual(await ex.flushOnce(EXPORT_BATCH), { moved: 0, failed: true });
        assert.match(String(metrics.lastDatasetFlushError), /socket hang up/);
        assert.deepEqual(await ex.flushOnce(EXPORT_BATCH), { moved: 0, failed: true });
        assert.deepEqual(await ex.flushOnce(EXPORT_BATCH), { moved: 5, failed: false });
        assert.deepEqual(sink.items.map((i) => i.id), ['e0', 'e1', 'e2', 'e3', 'e4']);
        assert.equal(metrics.lastDatasetFlushError, null);
        assert.equal((await store.health.stats()).outboxBacklog, 0);
    });

    it('regression: one item the dataset always refuses stopped the export for good; now it goes in minimal form after 3 failed attempts', async () => {
        for (let i = 0; i < 4; i++) await store.events.append(text(`e${i}`, Buffer.from(`body ${i}`)));
        const sink = new ScriptedSink((items) => (items.some((i) => i.id === 'e2' && i.exportError === undefined) ? 'Data item is not valid' : undefined));
        const ex = exporter(sink);
        for (let attempt = 1; attempt <= 3; attempt++) assert.deepEqual(await ex.flushOnce(EXPORT_BATCH), { moved: 0, failed: true }, `attempt ${attempt}`);
        assert.deepEqual(await ex.flushOnce(EXPORT_BATCH), { moved: 4, failed: false }, 'the 4th attempt goes item by item');
        assert.deepEqual(sink.items.map((i) => i.id), ['e0', 'e1', 'e2', 'e3']);
        const poisoned = sink.items[2]!;
        assert.deepEqual(poisoned.body, { truncated: true, size: 6, payloadUrl: 'http://svc/logs/e2/payload' });
        assert.match(String(poisoned.exportError), /refused by the dataset: Error: Data item is not valid/);
        assert.equal(sink.items[3]!.body, 'body 3', 'the items after it are whole');
        const copy = await blobs.read('payload-e2');
        assert.equal(copy.size, 6, 'the body the reference points at is kept in the blob store');
        copy.stream.destroy();
        assert.equal((await store.health.stats()).outboxBacklog, 0);
    });

    it('regression: 500 outbox bodies just under the offload threshold were read at once; a batch is now cut by bytes', async () => {
        const big = Buffer.alloc(5 * 1024 * 1024 - 1024, 0x61);
        for (let i = 0; i < 6; i++) await store.events.append(text(`big${i}`, big));
        for (let i = 0; i < 3; i++) await store.events.append(text(`small${i}`, Buffer.from('s')));
        const first = await store.outbox.readOutbox(EXPORT_BATCH, EXPORT_BATCH_BYTES);
        assert.deepEqual(first.map((b) => b.entry.id), ['big0'], 'two 5 MB bodies exceed the 8 MB budget');
        const sink = new ScriptedSink(() => undefined);
        const ex = exporter(sink);
        const moved: number[] = [];
        for (let r = await ex.flushOnce(EXPORT_BATCH); r.moved > 0; r = await ex.flushOnce(EXPORT_BATCH)) moved.push(r.moved);
        assert.deepEqual(moved, [1, 1, 1, 1, 1, 4], 'one large body per batch; the last batch takes the large one and the small ones');
        assert.deepEqual(sink.items.map((i) => i.id), ['big0', 'big1', 'big2', 'big3', 'big4', 'big5', 'small0', 'small1', 'small2']);
        assert.equal((await store.outbox.readOutbox(EXPORT_BATCH, 1)).length, 0);
    });

    it('reads a batch in slices: after a given event, nothing over the budget is forced in', async () => {
        for (let i = 0; i < 3; i++) await store.events.append(text(`e${i}`, Buffer.from('x'.repeat(1000))));
        const [first] = await store.outbox.readOutbox(1);
        assert.deepEqual((await store.outbox.readOutbox(EXPORT_BATCH, EXPORT_BATCH_BYTES, first!.seq)).map((b) => b.entry.id), ['e1', 'e2']);
        assert.ok(first!.bytes >= 1000, 'each item says what it counted against the budget');
        assert.deepEqual(await store.outbox.readOutbox(EXPORT_BATCH, first!.bytes - 1, first!.seq), [], 'the first read forces one event in; a continued read does not');
    });

    it('regression: a batch was read and converted in one go (a ~20 ms stall of capture per push); it is now built in slices between turns, whole and in order', async () => {
        const n = EXPORT_SLICE * 2 + 7;
        for (let i = 0; i < n; i++) await store.events.append(text(`e${i}`, Buffer.from(`body ${i}`)));
        // Count event-loop turns that ran while the batch was being built, before the push: with slices, other work gets in.
        let turns = 0;
        let turnsBeforePush = -1;
        const sink = new ScriptedSink(() => void (turnsBeforePush = turns));
        let spinning = true;
        const spin = () => {
            if (!spinning) return;
            turns++;
            setImmediate(spin);
        };
        setImmediate(spin);
        const result = await exporter(sink).flushOnce(EXPORT_BATCH);
        spinning = false;
        assert.deepEqual(result, { moved: n, failed: false });
        assert.deepEqual(sink.pushes, [n], 'still one push of the whole batch');
        assert.deepEqual(sink.items.map((i) => i.id), Array.from({ length: n }, (_, i) => `e${i}`));
        assert.ok(turnsBeforePush >= 2, `other work ran between the three slices (${turnsBeforePush} turns before the push)`);
    });

    it('reads at least one event however small the budget, and at most `limit`', async () => {
        for (let i = 0; i < 3; i++) await store.events.append(text(`e${i}`, Buffer.from('x'.repeat(1000))));
        assert.equal((await store.outbox.readOutbox(EXPORT_BATCH, 1)).length, 1);
        assert.equal((await store.outbox.readOutbox(2, EXPORT_BATCH_BYTES)).length, 2);
        assert.equal((await store.outbox.readOutbox(EXPORT_BATCH)).length, 3);
    });
});
