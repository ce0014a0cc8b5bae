import type pg from 'pg';

interface Counted {
    epoch: string;
    /** Highest seq the count covers. */
    top: number;
    count: number;
}

const MAX_ENTRIES = 64;
const caches = new WeakMap<pg.Pool, Map<string, Counted>>();

/** What a count filters on: `FROM ...` and its conditions, their values bound as $1..$n. */
export interface CountShape {
    from: string;
    conditions: string[];
    values: unknown[];
}

const sql = (s: CountShape, extra: string[]): string => {
    const all = [...s.conditions, ...extra];
    return `SELECT count(*) AS n FROM ${s.from}${all.length ? ` WHERE ${all.join(' AND ')}` : ''}`;
};

/**
 * The matches of `s`, counted on `client`'s snapshot, reusing an earlier count of the same filter:
 * events are append-only by seq (a commit takes its positions under the events lock, so every seq
 * up to the highest one seen is committed and visible) until a delete, which bumps meta
 * 'events_epoch'. So a count up to seq T stays true while the epoch holds, and only (T, top] is
 * counted again: a total over a million events costs what the events since the last query cost.
 * The same rule as the SQLite backend's count cache (sqlite/query/count-cache.ts).
 */
export async function cachedCount(pool: pg.Pool, client: pg.PoolClient, s: CountShape): Promise<number> {
    const { rows } = await client.query<{ top: string | number; epoch: string | null }>(
        `SELECT coalesce(max(seq), 0) AS top, (SELECT value FROM meta WHERE key = 'events_epoch') AS epoch FROM events_all`);
    const top = Number(rows[0]!.top);
    const epoch = rows[0]!.epoch ?? '0';
    let cache = caches.get(pool);
    if (!cache) caches.set(pool, (cache = new Map()));
    const key = `${sql(s, [])}\u0000${JSON.stringify(s.values)}`;
    const hit = cache.get(key);
    const count = async (extra: string[], values: unknown[]): Promise<number> =>
        Number((await client.query<{ n: string | number }>(sql(s, extra), values)).rows[0]!.n);
    let total: number;
    if (hit && hit.epoch === epoch && hit.top <= top) {
        const lo = `$${s.values.length + 1}::bigint`;
        const hi = `$${s.values.length + 2}::bigint`;
        total = hit.top === top ? hit.count : hit.count + (await count([`e.seq > ${lo}`, `e.seq <= ${hi}`], [...s.values, hit.top, top]));
    } else {
        total = await count([], s.values);
    }
    // A later count (another query saw more events) is kept rather than replaced by an older one.
    if (!hit || hit.epoch !== epoch || hit.top <= top) {
        cache.delete(key);
        cache.set(key, { epoch, top, count: total });
        if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
    }
    return total;
}
