import type { Database } from 'better-sqlite3';
import { prepared } from './statements.js';

interface Counted {
    /** Highest seq the count covers. */
    seq: number;
    count: number;
}

const MAX_ENTRIES = 64;
const caches = new WeakMap<Database, Map<string, Counted>>();

/**
 * A count that follows appends instead of rescanning: events are append-only (nothing deletes or
 * changes a stored event; seq grows with every commit), so the count of a filter up to seq S plus
 * the matches in (S, top] is the count up to `top`. Paging through a search in offset mode, or
 * polling it, then costs the new rows only. Whatever someday deletes events must bump meta
 * 'events_epoch', which is part of the key. `countAbove(lo)` counts matches in (lo, top].
 */
export function appendOnlyCount(db: Database, key: string, top: number, countAbove: (lo: number) => number): number {
    const epoch = (prepared(db, `SELECT value FROM meta WHERE key = 'events_epoch'`).pluck().get() as string | undefined) ?? '0';
    let cache = caches.get(db);
    if (!cache) caches.set(db, (cache = new Map()));
    const fullKey = `${epoch}\u0000${key}`;
    const hit = cache.get(fullKey);
    cache.delete(fullKey);
    const count = hit && hit.seq <= top ? hit.count + (hit.seq === top ? 0 : countAbove(hit.seq)) : countAbove(0);
    cache.set(fullKey, { seq: top, count });
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    return count;
}
