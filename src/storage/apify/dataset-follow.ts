import type { Logger } from '../../lib/log.js';
import type { EventLog, StoreMeta } from '../roles.js';
import type { NewEvent } from '../types.js';
import { eventFromItem } from './dataset-restore.js';
import type { DatasetSink } from './dataset-sink.js';
import { fetchRanges, TailWindow } from './dataset-tail.js';

/** One listing of a dataset: items from an offset, and how many the dataset holds. */
export interface DatasetPage {
    items: Record<string, unknown>[];
    total: number;
}

/** The dataset every run of the actor appends to, which each run follows. */
export interface FollowableDataset extends DatasetSink {
    /** Up to `limit` items from `offset`; with `fields`, only those fields of each. */
    list(offset: number, limit: number, fields?: string[]): Promise<DatasetPage>;
    /** Calls `listener` with the items of every push this run starts. */
    onPush(listener: (items: readonly Record<string, unknown>[]) => void): void;
}

/** Whether the sink is one runs can follow (the platform's named dataset). */
export function isFollowable(sink: DatasetSink): sink is FollowableDataset {
    const s = sink as Partial<FollowableDataset>;
    return typeof s.list === 'function' && typeof s.onPush === 'function';
}

/** One listing per second: 1 request/s per run while idle, up to 1 + MAX_FETCHES while others capture. */
export const FOLLOW_INTERVAL_MS = 1000;
/** Requests for whole items per round; more new items wait for the next round. */
export const MAX_FETCHES = 3;
/** Ids (and body sizes) listed per round. */
const ID_PAGE = 10_000;
/** Where the follower stands, kept so a restart on the same disk resumes there. */
export const FOLLOW_POSITION_KEY = 'follow_position';
/** Ids remembered a little below the window, as a late write can shift items up. */
const FORGET_BELOW = 1000;

/**
 * Merges the captures of the other runs alive at once (Standby) into this run's read model and
 * live stream. Each round lists the ids of the named dataset's tail (an overlap window, see
 * TailWindow), fetches whole only the items this run has neither captured nor merged, imports them
 * with their own ids and timestamps (not exported or forwarded again), then publishes them live.
 * Ids this run pushed itself, or merged, or found in its store, are never imported again, so an
 * event deleted here does not come back from the dataset.
 */
export class DatasetFollower {
    private window: TailWindow | undefined;
    /** Ids decided (merged, or already here), with the position they were listed at. */
    private readonly known = new Map<string, number>();
    /** Ids this run pushed that no listing has shown yet. */
    private readonly own = new Set<string>();
    private timer: NodeJS.Timeout | undefined;
    private running: Promise<void> | undefined;
    private stopped = true;
    /** Events merged from other runs. */
    merged = 0;
    /** The last round's failure, cleared by a round that succeeds. */
    lastError: string | null = null;

    constructor(private readonly dataset: FollowableDataset, private readonly store: { events: Pick<EventLog, 'webhookOf' | 'importEvents'>; meta: StoreMeta }, private readonly publish: (event: NewEvent) => void, private readonly log: Logger, private readonly intervalMs = FOLLOW_INTERVAL_MS) {
        dataset.onPush((items) => {
            for (const item of items) if (typeof item.id === 'string') this.own.add(item.id);
        });
    }

    /** Follows in the background: a round starts every `intervalMs` (or when the previous one ends, if later). */
    start(): void {
        this.stopped = false;
        const loop = async (): Promise<void> => {
            const began = Date.now();
            this.running = this.round().catch((error: unknown) => {
                this.lastError = String(error);
                this.log.warn('following the dataset failed; will retry', { error: String(error) });
            });
            await this.running;
            this.running = undefined;
            if (this.stopped) return;
            // Start to start, so a slow round (API, commit) does not add to the lag of the next.
            this.timer = setTimeout(() => void loop(), Math.max(0, this.intervalMs - (Date.now() - began)));
            this.timer.unref();
        };
        this.timer = setTimeout(() => void loop(), this.intervalMs);
        this.timer.unref();
    }

    /** Stops after the round in progress. */
    async stop(): Promise<void> {
        this.stopped = true;
        clearTimeout(this.timer);
        await this.running;
    }

    /** One round: list the tail's ids, fetch and merge what is new, move the window. */
    async round(): Promise<void> {
        const now = Date.now();
        const window = this.window ?? (this.window = await this.open(now));
        const start = window.start(now);
        const listing = await this.dataset.list(start, ID_PAGE, ['id', 'size']);
        if (listing.total < start) {
            window.reset(now, listing.total);
            return;
        }
        const ids = listing.items.map((item) => (typeof item.id === 'string' ? item.id : ''));
        const wanted: number[] = [];
        for (const [i, id] of ids.entries()) {
            if (id === '' || this.known.has(id)) continue;
            // Own captures (pushed here, or stored before this process) and events a restore brought.
            if (this.own.delete(id) || (await this.store.events.webhookOf(id)) !== undefined) this.known.set(id, start + i);
            else wanted.push(i);
        }
        const ranges = fetchRanges(listing.items.map((item) => Number(item.size) || 0), wanted).slice(0, MAX_FETCHES);
        for (const range of ranges) await this.merge(start, range.from, range.to, ids);
        // Everything before the first wanted item still missing (not fetched this round, or shifted) is settled.
        const missing = wanted.find((i) => !this.known.has(ids[i]!));
        const settled = start + (missing ?? ids.length);
        window.advance(now, settled);
        this.lastError = null;
        for (const [id, pos] of this.known) if (pos < start - FORGET_BELOW) this.known.delete(id);
        if (String(settled) !== (await this.store.meta.getMeta(FOLLOW_POSITION_KEY))) await this.store.meta.setMeta(FOLLOW_POSITION_KEY, String(settled));
    }

    /** Fetches listing items `from`..`to` whole and merges those still wanted, in dataset order. */
    private async merge(start: number, from: number, to: number, ids: readonly string[]): Promise<void> {
        const { items } = await this.dataset.list(start + from, to - from + 1);
        const events: NewEvent[] = [];
        const seen = new Set<string>();
        for (const item of items) {
            const id = typeof item.id === 'string' ? item.id : '';
            if (id === '' || seen.has(id) || this.known.has(id)) continue;
            seen.add(id);
            const at = ids.indexOf(id, from);
            // Not where the listing saw it (a late write moved it): a later round finds it again.
            if (at < 0) continue;
            const event = eventFromItem(item);
            if (event && (await this.store.events.webhookOf(id)) === undefined) events.push(event);
            else this.known.set(id, start + at);
        }
        if (events.length === 0) return;
        await this.store.events.importEvents(events);
        for (const event of events) {
            this.known.set(event.id, start + ids.indexOf(event.id, from));
            this.merged++;
            this.publish(event);
        }
    }

    /** Where following starts: where a previous process on this disk stopped, else the dataset's end. */
    private async open(now: number): Promise<TailWindow> {
        const saved = await this.store.meta.getMeta(FOLLOW_POSITION_KEY);
        if (saved !== undefined && Number.isInteger(Number(saved)) && Number(saved) >= 0) return new TailWindow(Number(saved), now);
        // A new disk: a restore (dataset-restore.ts) brings what is older; the first window re-reads a little of it.
        const { total } = await this.dataset.list(0, 1, ['id']);
        return new TailWindow(total, now);
    }
}
