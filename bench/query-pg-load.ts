import pg from 'pg';
import { ipToBytes } from '../src/lib/ip.js';
import { bodyKeys, keyColumns } from '../src/storage/pg/body-keys.js';
import { queryInUrl } from '../src/storage/pg/query-in-url.js';
import { migrate } from '../src/storage/pg/schema.js';
import { encodeEvent } from '../src/storage/rows.js';
import { benchEvent, prng } from './query-data.js';

const COLUMNS = ['seq', 'id', 'webhook_id', 'ts', 'method', 'status_code', 'size', 'processing_time', 'request_id', 'request_url', 'content_type', 'remote_ip',
    'user_agent', 'headers', 'query', 'response_headers', 'response_body', 'signature_valid', 'signature_provider', 'signature_error', 'body_kind', 'blob_key', 'meta', 'ip_bin', 'body_keys', 'body_sig', 'query_plain'];
const BATCH = 1000;

const placeholders = (rows: number, columns: number): string =>
    Array.from({ length: rows }, (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`).join(', ');

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
            const r = encodeEvent(benchEvent(rand, i, total));
            events.push(i + 1, ...r.slice(0, 16), r[16] === null ? null : r[16] === 1, ...r.slice(17, 22), ipToBytes(r[10]), ...keyColumns(bodyKeys(r[19], r[22])), queryInUrl(r[8], r[13]));
            if (r[22]) bodies.push(i + 1, Buffer.from(r[22]).toString('utf8'), null);
        }
        await pool.query(`INSERT INTO events (${COLUMNS.join(', ')}) VALUES ${placeholders(n, COLUMNS.length)}`, events);
        await pool.query(`INSERT INTO bodies (seq, text, raw) VALUES ${placeholders(bodies.length / 3, 3)}`, bodies);
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
