// Ingest with PostgreSQL as the store, against SQLite mode, in alternating rounds (issue 23 item 6).
//
//   npx tsx bench/ingest-pg.ts [--rounds 3] [--duration 10] [--connections 50] [--warmup 2]
//
// One throwaway PostgreSQL server (Debian's package, fsync on, as in production) on loopback.
// Each round: the built service on a fresh storage folder in SQLite mode, then the same service
// with DATABASE_URL on a fresh database; autocannon sends the same ~1 KB JSON POST to both. After
// each run every 2xx must be stored (storage.eventsStored ≥ 2xx). Targets: PostgreSQL ≥ 50% of
// SQLite mode (median ratio), PostgreSQL p99 < 50 ms at 50 connections.
import autocannon from 'autocannon';
import { startPgServer } from '../test/helpers/pg-server.js';
// @ts-expect-error: plain JavaScript bench helpers
import { BODY } from './lib/payload.mjs';
// @ts-expect-error: plain JavaScript bench helpers
import { ensureBuilt, firstWebhook, freshDir, loadArgs, median, removeDir, startService, table } from './lib/service.mjs';

interface Svc {
    url: string;
    json(path: string): Promise<{ storage: { eventsStored: number } }>;
    stop(): Promise<{ code: number | null }>;
}

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, warmup: WARMUP } = loadArgs() as { rounds: number; duration: number; connections: number; warmup: number };
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 50;

type Result = Awaited<ReturnType<typeof autocannon>>;
const cannon = (url: string, seconds: number): Promise<Result> =>
    autocannon({ url, method: 'POST', connections: CONNECTIONS, duration: seconds, headers: { 'content-type': 'application/json' }, body: BODY as string });

async function run(env: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; non2xx: number; errors: number; stored: number; answered: number }> {
    const dir = freshDir('ingest-pg') as string;
    const svc = (await startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', ...env } })) as Svc;
    try {
        const url = `${svc.url}/webhook/${(await firstWebhook(svc)) as string}`;
        const warm = WARMUP > 0 ? await cannon(url, WARMUP) : undefined;
        const r = await cannon(url, DURATION);
        const stored = (await svc.json('/system/metrics')).storage.eventsStored;
        return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors + r.timeouts, stored, answered: (warm?.['2xx'] ?? 0) + r['2xx'] };
    } finally {
        const exit = await svc.stop();
        if (exit.code !== 0) console.error(`service exited with ${JSON.stringify(exit)}`);
        removeDir(dir);
    }
}

ensureBuilt();
const pg = await startPgServer();
const rows: unknown[][] = [];
const ratios: number[] = [];
const pgP99: number[] = [];
let durable = true;
try {
    for (let round = 1; round <= ROUNDS; round++) {
        const sqlite = await run({});
        const postgres = await run({ DATABASE_URL: await pg.createDatabase('bench') });
        ratios.push(postgres.rps / sqlite.rps);
        pgP99.push(postgres.p99);
        for (const [name, r] of [['sqlite', sqlite], ['postgres', postgres]] as const) {
            const ok = r.stored >= r.answered;
            durable &&= ok;
            rows.push([round, name, r.rps.toFixed(0), r.p50, r.p99, r.non2xx, r.errors, `${r.stored} stored / ${r.answered} 2xx ${ok ? '✓' : '✗ LOST'}`]);
        }
        process.stderr.write(`round ${round}: sqlite ${sqlite.rps.toFixed(0)} req/s, postgres ${postgres.rps.toFixed(0)} req/s\n`);
    }
} finally {
    await pg.stop();
}
const ratio = median(ratios) as number;
const p99 = median(pgP99) as number;
console.log(`Ingest, PostgreSQL vs SQLite mode: ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections, ${Buffer.byteLength(BODY as string)} B JSON POST, Node ${process.version}\n`);
console.log(table(['round', 'store', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'durability'], rows));
console.log(`\nmedian postgres/sqlite: ${(ratio * 100).toFixed(1)}% (target ≥ ${TARGET_RATIO * 100}%) ${ratio >= TARGET_RATIO ? 'PASS' : 'FAIL'}`);
console.log(`median postgres p99: ${p99} ms (target < ${TARGET_P99_MS} ms) ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
console.log(`every 2xx stored: ${durable ? 'yes' : 'NO'}`);
process.exitCode = durable ? 0 : 1;
