// Where PostgreSQL spends its time during PostgreSQL-mode ingest: pg_stat_statements (with
// statements inside functions) over a burst of the ingest bench's POSTs, per capture.
//
//   npx tsx bench/ingest-pg-statements.ts [--duration 8] [--connections 50]
//
// A throwaway server (test/helpers/pg-server.ts, fsync on) with pg_stat_statements preloaded, the
// built service on it, 2 s of warm-up, then the counters are reset and the burst runs. Prints the
// 20 statements that took the most time, in µs of execution per 2xx capture (a diagnostic: no target).
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPgServer } from '../test/helpers/pg-server.js';
// @ts-expect-error: plain JavaScript bench helpers
import { BODY } from './lib/payload.mjs';
// @ts-expect-error: plain JavaScript bench helpers
import { ensureBuilt, firstWebhook, freshDir, removeDir, startService } from './lib/service.mjs';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '8' }, connections: { type: 'string', default: '50' } } });
const burst = (url: string, seconds: number): ReturnType<typeof autocannon> =>
    autocannon({ url, method: 'POST', connections: Number(args.connections), duration: seconds, headers: { 'content-type': 'application/json' }, body: BODY as string });

ensureBuilt();
const server = await startPgServer({ settings: ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] });
const dir = freshDir('ingest-pg-statements') as string;
const dbUrl = await server.createDatabase('bench');
const db = new pg.Client({ connectionString: dbUrl });
await db.connect();
await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
const svc = (await startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: dbUrl } })) as { url: string; stop(): Promise<unknown> };
try {
    const url = `${svc.url}/webhook/${(await firstWebhook(svc)) as string}`;
    await burst(url, 2);
    await db.query('SELECT pg_stat_statements_reset()');
    const r = await burst(url, Number(args.duration));
    const { rows } = await db.query<{ calls: string; total_exec_time: number; toplevel: boolean; q: string }>(
        `SELECT calls, total_exec_time, toplevel, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS q FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 20`);
    process.stdout.write(`${r['2xx']} captures answered 2xx, ${Math.round(r.requests.average)} req/s\n\n| calls | µs per capture | nested | statement |\n| --- | --- | --- | --- |\n`);
    for (const x of rows) process.stdout.write(`| ${x.calls} | ${((x.total_exec_time * 1000) / r['2xx']).toFixed(1)} | ${x.toplevel ? '' : 'yes'} | \`${x.q.replaceAll('|', '\\|')}\` |\n`);
} finally {
    await db.end();
    await svc.stop();
    removeDir(dir);
    await server.stop();
}
