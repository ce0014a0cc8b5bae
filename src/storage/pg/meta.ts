import type pg from 'pg';
import type { StoreStats } from '../event-store.js';
import { rows } from './pool.js';

/** Small facts the service keeps about itself, shared by every instance. */
export class PgMeta {
    constructor(private readonly pool: pg.Pool) {}

    async getMeta(key: string): Promise<string | undefined> {
        const [row] = await rows<{ value: string }>(this.pool, 'SELECT value FROM meta WHERE key = $1', [key]);
        return row?.value;
    }

    async setMeta(key: string, value: string): Promise<void> {
        await rows(this.pool, 'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
    }
}

// Past this many rows the planner's estimate stands in for count(*), which reads the whole table
// (seconds at millions of events); below it the count is exact (and cheap).
const EXACT_UP_TO = 100_000;

const STATS = `SELECT
    (SELECT CASE WHEN c.reltuples > ${EXACT_UP_TO} THEN c.reltuples::bigint ELSE (SELECT count(*) FROM events) END FROM pg_class c WHERE c.oid = 'events'::regclass) AS indexed,
    (SELECT count(*) FROM events_inbox) AS inbox,
    (SELECT count(*) FROM outbox) AS outbox,
    (SELECT count(*) FROM forward_backlog) AS backlog,
    (SELECT count(*) FROM events_all WHERE body_kind = 'offloaded') AS offloaded,
    pg_database_size(current_database()) AS bytes`;

/** Counters for /system/metrics and /ready. */
export async function pgStats(pool: pg.Pool, durability: StoreStats['durability']): Promise<StoreStats> {
    const [row] = await rows<{ indexed: number; inbox: number; outbox: number; backlog: number; offloaded: number; bytes: number }>(pool, STATS);
    return {
        eventsStored: (row?.indexed ?? 0) + (row?.inbox ?? 0),
        outboxBacklog: row?.outbox ?? 0,
        forwardBacklog: row?.backlog ?? 0,
        offloadedPayloads: row?.offloaded ?? 0,
        unindexed: row?.inbox ?? 0,
        databaseBytes: row?.bytes ?? 0,
        durability,
    };
}

/** How the server makes commits durable: `full` when each commit is flushed to disk before it is answered. */
export async function pgDurability(pool: pg.Pool): Promise<StoreStats['durability']> {
    const [row] = await rows<{ fsync: string; sc: string }>(pool, `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc`);
    return row?.fsync === 'on' && ['on', 'remote_write', 'remote_apply', 'local'].includes(row.sc) ? 'full' : 'other';
}
