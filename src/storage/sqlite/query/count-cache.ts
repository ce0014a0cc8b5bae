import type { Database } from 'better-sqlite3';
import { prepared } from './statements.js';

interface Counted {
    /** Highest seq the count covers. */
    seq: number;
    count: number;
}

const MAX_ENTRIES = 64;

/**
 * Counts of filters up to some seq, the most recently used `MAX_ENTRIES` of them. Keys carry the
 * events epoch (see appendOnlyCount). The query pool keeps one on its thread for the counts it splits.
 */
export class CountCache {
    private readonly entries = new Map<string, Counted>();

    /** The count cached under `key` if it covers at most seq `top` (a later one is no use). */
    get(key: string, top: number): Counted | undefined {
        const hit = this.entries.get(key);
        return hit && hit.seq <= top ? hit : undefined;
    }

    /** Caches `count` as the count up to seq `seq`, as the most recently used entry. */
    set(key: string, seq: number, count: number): void {
        this.entries.delete(key);
        this.entries.set(key, { seq, count });
        if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    }
}

const caches = new WeakMap<Database, CountCache>();

/** The events epoch: bumped by whatever someday deletes events, so that cached counts lapse. */
export function eventsEpoch(db: Database): string {
    return (prepared(db, `SELECT value FROM meta WHERE key = 'events_epoch'`).pluck().get() as string | undefined) ?? '0';
}

/** The cache key of a count: the filter's key under the current epoch. */
export function epochKey(epoch: string, key: string): string {
    return `${epoch}\u0000${key}`;
}

/**
 * A count that follows appends instead of rescanning: events are append-only (nothing deletes or
 * changes a stored event; seq grows with every commit), so the count of a filter up to seq S plus
 * the matches in (S, top] is the count up to `top`. Paging through a search in offset mode, or
 * polling it, then costs the new rows only. Whatever someday deletes events must bump meta
 * 'events_epoch', which is part of the key. `countAbove(lo)` counts matches in (lo, top].
 */
export function appendOnlyCount(db: Database, key: string, top: number, countAbove: (lo: number) => number): number {
    let cache = caches.get(db);
    if (!cache) caches.set(db, (cache = new CountCache()));
    const fullKey = epochKey(eventsEpoch(db), key);
    const hit = cache.get(fullKey, top);
    const count = hit ? hit.count + (hit.seq === top ? 0 : countAbove(hit.seq)) : countAbove(0);
    cache.set(fullKey, top, count);
    return count;
}
