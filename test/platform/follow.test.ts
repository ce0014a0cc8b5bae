import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleLogger } from '../../src/lib/log.js';
import { DatasetFollower, FOLLOW_POSITION_KEY, type DatasetPage, type FollowableDataset } from '../../src/storage/apify/dataset-follow.js';
import { fetchRanges, FETCH_BYTES, TailWindow, MAX_OVERLAP_ITEMS, OVERLAP_MS } from '../../src/storage/apify/dataset-tail.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import type { NewEvent } from '../../src/storage/types.js';

/**
 * The named dataset as the platform keeps it, in memory: the outside world of the follower. Items
 * can be put at any position, as a push still in flight lands before items already listed.
 */
class PlatformDataset implements FollowableDataset {
    items: Record<string, unknown>[] = [];
    listCalls = 0;
    private listener: ((items: readonly Record<string, unknown>[]) => void) | undefined;

    async push(items: Record<string, unknown>[]): Promise<void> {
        this.listener?.(items);
        this.items.push(...items);
    }
    async read(offset: number, limit: number): Promise<Record<string, unknown>[]> {
        return this.items.slice(offset, offset + limit);
    }
    async list(offset: number, limit: number, fields?: string[]): Promise<DatasetPage> {
        this.listCalls++;
        const page = this.items.slice(offset, offset + limit).map((i) => (fields ? Object.fromEntries(fields.filter((f) => f in i).map((f) => [f, i[f]])) : i));
        return { items: page, total: this.items.length };
    }
    onPush(listener: (items: readonly Record<string, unknown>[]) => void): void {
        this.listener = listener;
    }
}

let n = 0;
/** A dataset item as another run's exporter writes it. */
const item = (body = `body ${n}`): Record<string, unknown> => {
    n++;
    return { id: `other${String(n).padStart(6, '0')}`, webhookId: 'wh_a', timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), method: 'POST', statusCode: 200, size: Buffer.byteLength(body), processingTime: 1, requestId: `req${n}`, requestUrl: '/webhook/wh_a', contentType: 'text/plain', remoteIp: '127.0.0.1', userAgent: 'x', headers: {}, query: {}, body, responseHeaders: {}, responseBody: null };
};
/** A capture of this run: stored, then exported by this run. */
const ownEvent = (id: string): NewEvent => ({ id, webhookId: 'wh_a', timestamp: Date.now(), method: 'POST', statusCode: 200, size: 2, processingTime: 1, requestId: `r-${id}`, requestUrl: '/webhook/wh_a', contentType: 'text/plain', remoteIp: '127.0.0.1', userAgent: 'x', headers: {}, query: {}, bodyKind: 'text', bodyRaw: Buffer.from('hi'), responseHeaders: {}, responseBody: null });

describe('following the named dataset (one run, the others as dataset writers)', () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
        for (const c of cleanup.splice(0)) await c();
    });
    const setup = async (dir?: string) => {
        const folder = dir ?? (await mkdtemp(join(tmpdir(), 'whd-follow-')));
        const store = await openSqliteStorage({ file: join(folder, 'events.sqlite'), queryWorkers: 0 });
        cleanup.push(() => store.close());
        if (!dir) cleanup.push(() => rm(folder, { recursive: true, force: true }));
        return { folder, store };
    };

    it('merges the other runs’ events with their ids and timestamps, publishes each once, and never re-inserts its own', async () => {
        const { store } = await setup();
        const dataset = new PlatformDataset();
        dataset.items.push(item(), item()); // older history: a restore's business
        const published: string[] = [];
        const follower = new DatasetFollower(dataset, store, (e) => published.push(e.id), consoleLogger);
        await follower.round();
        expect(published).toEqual(dataset.items.map((i) => i.id)); // the first window re-reads a little
        const own = ownEvent('own000001');
        await store.events.append(own);
        await dataset.push([{ ...item('x'), id: own.id }]);
        const foreign = [item('a'), item('b')];
        dataset.items.push(...foreign);
        await follower.round();
        await follower.round();
        expect(published.slice(2)).toEqual(foreign.map((i) => i.id));
        const entry = await store.events.getEntry(String(foreign[0]!.id));
        expect(entry.timestamp).toBe(foreign[0]!.timestamp);
        expect(entry.body).toBe('a');
        expect((await store.events.getEntry(own.id)).body).toBe('hi'); // its own row, not the dataset's copy
        expect((await store.health.stats()).eventsStored).toBe(5);
        expect((await store.health.stats()).outboxBacklog).toBe(1); // merged events are not exported again
        expect(follower.merged).toBe(4);
    });

    it('a late write that lands before items already listed is merged (the overlap window), and repeated items once', async () => {
        const { store } = await setup();
        const dataset = new PlatformDataset();
        const published: string[] = [];
        const follower = new DatasetFollower(dataset, store, (e) => published.push(e.id), consoleLogger);
        await follower.round();
        const [a, b, late] = [item(), item(), item()];
        dataset.items.push(a!, b!);
        await follower.round();
        dataset.items.splice(0, 0, late!); // in flight while a and b were read, committed before them
        dataset.items.push(a!, { ...b! }); // a retried push repeats items
        await follower.round();
        expect(published).toEqual([a!.id, b!.id, late!.id]);
        expect((await store.health.stats()).eventsStored).toBe(3);
    });

    it('an event deleted here (its own or merged) does not come back from the dataset', async () => {
        const { store } = await setup();
        const dataset = new PlatformDataset();
        const published: string[] = [];
        const follower = new DatasetFollower(dataset, store, (e) => published.push(e.id), consoleLogger);
        await follower.round();
        const own = ownEvent('own000002');
        await store.events.append(own);
        await dataset.push([{ ...item(), id: own.id }]);
        await store.events.deleteEvents([own.id]); // deleted before the follower saw its export
        const merged = item();
        dataset.items.push(merged);
        await follower.round();
        await store.events.deleteEvents([String(merged.id)]);
        await follower.round();
        await follower.round();
        expect(published).toEqual([merged.id]);
        expect((await store.health.stats()).eventsStored).toBe(0);
    });

    it('a restart on the same disk resumes where it stopped, past the first window', async () => {
        const { folder, store } = await setup();
        const dataset = new PlatformDataset();
        const follower = new DatasetFollower(dataset, store, () => undefined, consoleLogger);
        await follower.round();
        await follower.round();
        const position = await store.meta.getMeta(FOLLOW_POSITION_KEY);
        expect(position).toBe('0');
        await store.close();
        cleanup.length = 0;
        cleanup.push(() => rm(folder, { recursive: true, force: true }));
        for (let i = 0; i < 300; i++) dataset.items.push(item()); // captured by others while it was down
        const { store: again } = await setup(folder);
        const published: string[] = [];
        const next = new DatasetFollower(dataset, again, (e) => published.push(e.id), consoleLogger);
        await next.round();
        expect(published).toHaveLength(300);
        expect(await again.meta.getMeta(FOLLOW_POSITION_KEY)).toBe('300');
    });

    it('an item that is not an event is skipped and does not hold the window back', async () => {
        const { store } = await setup();
        const dataset = new PlatformDataset();
        const published: string[] = [];
        const follower = new DatasetFollower(dataset, store, (e) => published.push(e.id), consoleLogger);
        await follower.round();
        const good = item();
        dataset.items.push({ id: 'junk', note: 'pushed by hand' }, good);
        await follower.round();
        expect(published).toEqual([good.id]);
        expect(await store.meta.getMeta(FOLLOW_POSITION_KEY)).toBe('2');
    });

    it('an idle dataset costs one listing per round, of nothing once the overlap has passed', async () => {
        const { store } = await setup();
        const dataset = new PlatformDataset();
        const follower = new DatasetFollower(dataset, store, () => undefined, consoleLogger);
        await follower.round(); // opening: the dataset's length, then the first listing
        const before = dataset.listCalls;
        for (let i = 0; i < 5; i++) await follower.round();
        expect(dataset.listCalls - before).toBe(5);
    });
});

describe('the tail window and fetch ranges', () => {
    it('starts where the tail stood OVERLAP_MS ago, at most MAX_OVERLAP_ITEMS back, and never past unsettled items', () => {
        const t = 1_000_000;
        const w = new TailWindow(500, t);
        expect(w.start(t)).toBe(400); // the first window re-reads 100
        w.advance(t + 1000, 520);
        w.advance(t + OVERLAP_MS + 1000, 600);
        expect(w.start(t + OVERLAP_MS + 1500)).toBe(520); // where it stood 10 s before
        w.advance(t + OVERLAP_MS + 2000, 600 + MAX_OVERLAP_ITEMS + 50);
        expect(w.start(t + OVERLAP_MS + 2500)).toBe(650);
        w.advance(t + 3 * OVERLAP_MS, 650 + MAX_OVERLAP_ITEMS);
        w.advance(t + 4 * OVERLAP_MS, 650 + MAX_OVERLAP_ITEMS);
        expect(w.start(t + 5 * OVERLAP_MS)).toBe(650 + MAX_OVERLAP_ITEMS); // idle: the window has closed
    });

    it('groups wanted items into ranges bounded by count and bytes, and does not drag large unwanted items along', () => {
        expect(fetchRanges([10, 10, 10, 10], [0, 1, 3])).toEqual([{ from: 0, to: 3 }]);
        const big = FETCH_BYTES; // an own 8 MB item between two wanted ones
        expect(fetchRanges([10, big, 10], [0, 2])).toEqual([{ from: 0, to: 0 }, { from: 2, to: 2 }]);
        const many = Array.from({ length: 2500 }, () => 10);
        expect(fetchRanges(many, many.map((_, i) => i)).map((r) => r.to - r.from + 1)).toEqual([1000, 1000, 500]);
    });
});
