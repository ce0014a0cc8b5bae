// Bulk delete against capture: does deleting 100,000 captures stall ingest, and does the disk space come back?
//
//   node bench/bulk-delete.mjs [--captures 100000] [--rate 200]
//
// Fills one webhook of the built service (fresh storage) with `captures` ~1 KB captures and waits for
// their dataset export, then measures the ingest latency on a second webhook at a fixed `rate`
// (requests/s) alone, while `DELETE /logs?webhookId=<first>` runs, and alone again, and reports p50/p99, the delete's duration, and the
// database size (file + WAL) before the fill, after it, right after the delete and once the freed
// pages have been given back (auto_vacuum=INCREMENTAL, a few pages per writer commit).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { BODY } from './lib/payload.mjs';
import { ensureBuilt, freshDir, loadArgs, removeDir, startService, table } from './lib/service.mjs';

const args = loadArgs({ captures: 100_000, rate: 200 });
const CAPTURES = Number(args.captures);
const RATE = Number(args.rate);
const TARGET_P99_MS = 50;

const mb = (n) => (n / 1048576).toFixed(1);
function dbBytes(dir) {
    let total = 0;
    for (const suffix of ['', '-wal']) {
        try {
            total += statSync(join(dir, 'webhook-debugger', `events.sqlite${suffix}`)).size;
        } catch {
            // no WAL between checkpoints
        }
    }
    return total;
}

/** The database as SQLite sees it (committed state, WAL included): used and free pages, in bytes. */
function pages(dir) {
    const db = new Database(join(dir, 'webhook-debugger', 'events.sqlite'), { readonly: true });
    try {
        const size = db.pragma('page_size', { simple: true });
        return { used: db.pragma('page_count', { simple: true }) * size, free: db.pragma('freelist_count', { simple: true }) * size };
    } finally {
        db.close();
    }
}

/** Ingest on `url` at RATE requests/s until `until` settles (or for `seconds` when none is given). */
async function load(url, { seconds = 3600, until } = {}) {
    const instance = autocannon({ url, method: 'POST', connections: 20, overallRate: RATE, duration: seconds, headers: { 'content-type': 'application/json' }, body: BODY });
    const done = new Promise((resolve) => instance.once('done', resolve));
    let extra;
    if (until) {
        extra = await until;
        instance.stop();
    }
    const r = await done;
    return { p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors + r.timeouts, extra };
}

ensureBuilt();
const dir = freshDir('bulk-delete');
const svc = await startService({ dir, input: { urlCount: 2 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
try {
    const [doomed, live] = (await svc.json('/webhooks')).items.map((w) => w.id);
    const sizes = { start: dbBytes(dir) };
    const fillStarted = performance.now();
    const fill = await autocannon({ url: `${svc.url}/webhook/${doomed}`, method: 'POST', connections: 50, amount: CAPTURES, headers: { 'content-type': 'application/json' }, body: BODY });
    const fillS = (performance.now() - fillStarted) / 1000;
    sizes.filled = dbBytes(dir);
    const filled = pages(dir);
    console.log(`filled ${fill['2xx']} captures in ${fillS.toFixed(1)} s (${Math.round(fill['2xx'] / fillS)}/s)`);

    // The dataset export of the fill runs in the background: let it finish so that only the delete differs.
    for (let i = 0; i < 1200 && (await svc.json('/system/metrics')).sync.outboxBacklog > 0; i++) await new Promise((r) => setTimeout(r, 500));
    const liveUrl = `${svc.url}/webhook/${live}`;
    const alone = await load(liveUrl, { seconds: 10 });
    const deleting = (async () => {
        const started = performance.now();
        const res = await fetch(`${svc.url}/logs?webhookId=${doomed}`, { method: 'DELETE' });
        const body = await res.json();
        return { status: res.status, deleted: body.deleted, seconds: (performance.now() - started) / 1000 };
    })();
    const during = await load(liveUrl, { until: deleting });
    sizes.deleted = dbBytes(dir);
    const aloneAfter = await load(liveUrl, { seconds: 10 });
    const afterDelete = pages(dir);
    // The freed pages go back in the background, a few per writer commit: wait until none is left.
    const reclaimStarted = performance.now();
    while (pages(dir).free > 0 && performance.now() - reclaimStarted < 300_000) await new Promise((r) => setTimeout(r, 200));
    const reclaimS = (performance.now() - reclaimStarted) / 1000;
    const afterReclaim = pages(dir);
    // The file itself shrinks at the next WAL checkpoint (SQLite runs one every ~4 MB of WAL); ingest a little to get there.
    await load(liveUrl, { seconds: 5 });
    sizes.reclaimed = dbBytes(dir);
    const d = during.extra;
    console.log(`DELETE /logs?webhookId=… → ${d.status}, deleted ${d.deleted} in ${d.seconds.toFixed(1)} s (${Math.round(d.deleted / d.seconds)}/s)`);
    console.log(table(['ingest at ' + RATE + '/s', 'p50 ms', 'p99 ms', 'max ms', '2xx', 'non-2xx', 'errors'], [
        ['alone', alone.p50, alone.p99, alone.max, alone.ok, alone.non2xx, alone.errors],
        ['during the delete', during.p50, during.p99, during.max, during.ok, during.non2xx, during.errors],
        ['alone, after', aloneAfter.p50, aloneAfter.p99, aloneAfter.max, aloneAfter.ok, aloneAfter.non2xx, aloneAfter.errors],
    ]));
    console.log(table(['database', 'file + WAL MB', 'pages in use MB', 'free pages MB'], [
        ['fresh', mb(sizes.start), '', ''],
        [`after ${CAPTURES} captures`, mb(sizes.filled), mb(filled.used), mb(filled.free)],
        ['right after the delete', mb(sizes.deleted), mb(afterDelete.used), mb(afterDelete.free)],
        [`free pages given back (${reclaimS.toFixed(1)} s later)`, '', mb(afterReclaim.used), mb(afterReclaim.free)],
        ['after the next checkpoint', mb(sizes.reclaimed), mb(pages(dir).used), mb(pages(dir).free)],
    ]));
    console.log(`target: p99 during the delete < ${TARGET_P99_MS} ms → ${during.p99 < TARGET_P99_MS ? 'met' : 'NOT met'}`);
} finally {
    await svc.stop();
    removeDir(dir);
}
