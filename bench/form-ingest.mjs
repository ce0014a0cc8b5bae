// Ingest of a small form against JSON of the same size: what reading and describing a form costs.
//
//   node bench/form-ingest.mjs [--rounds 6] [--duration 6] [--connections 50]
//
// Each round runs both bodies on fresh services of the built service, the order alternating every
// round: a 2 KB multipart/form-data (3 fields and 1 text file, as a mail or upload hook sends them)
// and 2 KB of JSON. Prints each run and the median of the per-round multipart/JSON ratios
// (target ≥ 0.80), and checks that a stored multipart capture carries its description. Beside req/s
// it gives the service's CPU per request (all threads, /proc), which a machine busy with other work
// disturbs far less: JSON's CPU per request over multipart's is the throughput ratio a saturated
// service would show.
import autocannon from 'autocannon';
import { ensureBuilt, firstWebhook, freshDir, loadArgs, measureThreads, median, removeDir, startService, table, threadCpuPerRequest } from './lib/service.mjs';

const SIZE = 2048;
const { rounds, duration, connections, warmup } = loadArgs({ rounds: 6, duration: 6 });
const BOUNDARY = '----WebKitFormBoundary7MA4YWxkTrZu0gW';

/** The multipart body: three fields and one file, the file padded so the whole is SIZE bytes. */
function multipartBody() {
    const part = (name, value, file) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\nContent-Type: text/csv` : ''}\r\n\r\n${value}\r\n`;
    const fields = part('from', 'Ann Example <ann@example.com>') + part('subject', 'Invoice A-10042') + part('attachment-count', '1');
    const head = `${fields}--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment-1"; filename="invoice.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    const tail = `\r\n--${BOUNDARY}--\r\n`;
    const rows = 'line,description,amount\n'.padEnd(SIZE - head.length - tail.length, 'seat license,42.00\n');
    return head + rows + tail;
}

/** JSON of the same size. */
function jsonBody() {
    const base = { from: 'Ann Example <ann@example.com>', subject: 'Invoice A-10042', attachments: 1, csv: '' };
    return JSON.stringify({ ...base, csv: 'x'.repeat(SIZE - JSON.stringify(base).length) });
}

const BODIES = {
    multipart: { body: multipartBody(), type: `multipart/form-data; boundary=${BOUNDARY}` },
    json: { body: jsonBody(), type: 'application/json' },
};

/** One run: ingest req/s of one body on a fresh service; for multipart, the stored description is checked. */
async function run(kind) {
    const { body, type } = BODIES[kind];
    const dir = freshDir('form-ingest');
    const svc = await startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0' } });
    try {
        const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        const opts = { url, method: 'POST', connections, headers: { 'content-type': type }, body };
        await autocannon({ ...opts, duration: warmup });
        const { result, before, after } = await measureThreads(svc.pid, () => autocannon({ ...opts, duration }));
        const cpuUs = threadCpuPerRequest(before, after, result.requests.total, 0).reduce((sum, t) => sum + t.us, 0);
        let described = true;
        if (kind === 'multipart') {
            const { items } = await svc.json('/logs?limit=1');
            const entry = await svc.json(`/logs/${items[0].id}`);
            described = Object.keys(entry.form?.fields ?? {}).length === 3 && entry.form.files.length === 1 && entry.form.files[0].size > 1500 && !entry.formError;
        }
        return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, described, cpuUs };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

ensureBuilt();
if (Buffer.byteLength(BODIES.multipart.body) !== SIZE || Buffer.byteLength(BODIES.json.body) !== SIZE) throw new Error('bodies are not 2 KB');
const rows = [];
const ratios = [];
const cpuRatios = [];
let ok = true;
for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? ['multipart', 'json'] : ['json', 'multipart'];
    const result = {};
    for (const kind of order) result[kind] = await run(kind);
    ratios.push(result.multipart.rps / result.json.rps);
    cpuRatios.push(result.json.cpuUs / result.multipart.cpuUs);
    ok &&= result.multipart.described && result.multipart.non2xx === 0 && result.json.non2xx === 0;
    rows.push([round, order.join(' → '), result.json.rps.toFixed(0), result.multipart.rps.toFixed(0), `${result.json.p99} / ${result.multipart.p99}`, ratios.at(-1).toFixed(3), `${result.json.cpuUs.toFixed(0)} / ${result.multipart.cpuUs.toFixed(0)}`, cpuRatios.at(-1).toFixed(3), result.multipart.described ? '✓' : '✗']);
}
console.log(`Form ingest: ${SIZE} B multipart (3 fields + 1 file) against ${SIZE} B JSON, ${connections} connections, ${duration} s per run, Node ${process.version}\n`);
console.log(table(['round', 'order', 'JSON req/s', 'multipart req/s', 'p99 ms JSON / multipart', 'multipart/JSON', 'CPU µs/req JSON / multipart', 'JSON CPU / multipart CPU', 'described'], rows));
const m = median(ratios);
console.log(`\nmedian multipart/JSON: ${m.toFixed(3)} (target ≥ 0.80) ${m >= 0.8 ? '✓' : '✗'}`);
const c = median(cpuRatios);
console.log(`median JSON CPU / multipart CPU per request: ${c.toFixed(3)} (target ≥ 0.80) ${c >= 0.8 ? '✓' : '✗'}`);
process.exitCode = ok ? 0 : 1;
