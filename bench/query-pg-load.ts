import pg from 'pg';
import { migrate } from '../src/storage/pg/schema.js';
import { BODY_COLUMNS, EVENT_COLUMNS, eventRows, placeholders } from '../test/pg/event-rows.js';
import { benchEvent, prng } from './query-data.js';

const BATCH = 1000;

/**
 * Loads `total` bench events (bench/query-data.ts, the SQLite bench's generator: same seed, same
 * events) encoded as the backends store them. The schema comes from the real migration; its
 * secondary indexes are dropped for the load and built again in bulk by a second migration, as
 * loading a million rows through 25 live indexes would take far longer. Then VACUUM ANALYZE.
 */
export async function loadPgEvents(url: string, total: number, log: (line: string) => void): Promise<{ loadMs: number; indexMs: number }> {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    await migrate(pool);
    const { rows: indexes } = await pool.query<{ name: string }>(`SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
        JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname IN ('events', 'bodies') AND NOT x.indisprimary AND NOT x.indisunique`);
    for (const { name } of indexes) await pool.query(`DROP INDEX ${name}`);
    const rand = prng(42);
    const started = performance.now();
    for (let start = 0; start < total; start += BATCH) {
        const n = Math.min(BATCH, total - start);
        const events: unknown[] = [];
        const bodies: unknown[] = [];
        for (let i = start; i < start + n; i++) {
            const rows = eventRows(i + 1, benchEvent(rand, i, total));
            events.push(...rows.event);
            if (rows.body) bodies.push(...rows.body);
        }
        await pool.query(`INSERT INTO events (${EVENT_COLUMNS.join(', ')}) VALUES ${placeholders(n, EVENT_COLUMNS.length)}`, events);
        await pool.query(`INSERT INTO bodies (${BODY_COLUMNS.join(', ')}) VALUES ${placeholders(bodies.length / BODY_COLUMNS.length, BODY_COLUMNS.length)}`, bodies);
        if ((start + n) % 100_000 === 0) log(`  ${start + n} events (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    await pool.query(`SELECT setval('events_seq', $1)`, [total]);
    const loadMs = performance.now() - started;
    log(`Building indexes (${indexes.length} dropped for the load, plus any missing)`);
    const indexStarted = performance.now();
    // Index builds sort in memory when they may: a session setting, so a new pool takes it.
    await pool.query(`ALTER DATABASE "${(await pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db}" SET maintenance_work_mem = '1GB'`);
    await pool.end();
    const fresh = new pg.Pool({ connectionString: url, max: 2 });
    await migrate(fresh);
    await fresh.query('VACUUM ANALYZE events');
    await fresh.query('VACUUM ANALYZE bodies');
    await fresh.end();
    return { loadMs, indexMs: performance.now() - indexStarted };
}
