// Freshness across instances (issue 23 item 6): two services on one PostgreSQL; captures sent to
// instance A; how long from the sender's answer until instance B lists the capture (GET /logs) and
// streams it (GET /log-stream).
//
//   npx tsx bench/freshness-pg.ts [--rate 100] [--seconds 10] [--rounds 3]
//
// The sender paces POSTs at --rate with `?seq=N` in the URL. B's stream client and B's list poller
// (newest page every 10 ms) note when each seq first appears. Same clock for all (this process).
// Target: p99 < 200 ms for both, every capture seen.
import { request } from 'node:http';
import { Agent } from 'node:http';
import { parseArgs } from 'node:util';
import { startPgServer } from '../test/helpers/pg-server.js';
// @ts-expect-error: plain JavaScript bench helpers
import { ensureBuilt, firstWebhook, freshDir, median, removeDir, startService, table } from './lib/service.mjs';

interface Svc {
    url: string;
    json(path: string): Promise<unknown>;
    stop(): Promise<{ code: number | null }>;
}

const { values } = parseArgs({ options: { rate: { type: 'string', default: '100' }, seconds: { type: 'string', default: '10' }, rounds: { type: 'string', default: '3' } } });
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const TARGET_P99_MS = 200;
const now = (): number => performance.timeOrigin + performance.now();
const pct = (xs: number[], p: number): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? NaN;
};

function post(url: string, agent: Agent): Promise<number> {
    return new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end('{"fresh":true}');
    });
}

/** Opens B's stream; calls `seen(seq)` as frames arrive. */
function stream(url: string, seen: (seq: number) => void): Promise<() => void> {
    return new Promise((resolve, reject) => {
        const req = request(`${url}/log-stream`, { headers: { Accept: 'text/event-stream' }, agent: false }, (res) => {
            let buf = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
                buf += chunk;
                let end;
                while ((end = buf.indexOf('\n\n')) !== -1) {
                    const frame = buf.slice(0, end);
                    buf = buf.slice(end + 2);
                    const m = /\?seq=(\d+)/.exec(frame);
                    if (m) seen(Number(m[1]));
                }
            });
            resolve(() => req.destroy());
        });
        req.on('error', reject);
        req.end();
    });
}

async function round(dbUrl: string): Promise<{ listed: number[]; streamed: number[]; sent: number; missing: number }> {
    const dirs = [freshDir('fresh-a') as string, freshDir('fresh-b') as string];
    const [a, b] = (await Promise.all(dirs.map((dir) => startService({ dir, input: { urlCount: 1 }, env: { INGEST_RATE_LIMIT_PER_MINUTE: '0', DATABASE_URL: dbUrl } })))) as Svc[];
    try {
        const hook = (await firstWebhook(a)) as string;
        const answered = new Map<number, number>();
        const listedAt = new Map<number, number>();
        const streamedAt = new Map<number, number>();
        const close = await stream(b!.url, (seq) => streamedAt.has(seq) || streamedAt.set(seq, now()));
        let polling = true;
        const poller = (async () => {
            while (polling) {
                const page = (await b!.json('/logs?limit=50')) as { items: { requestUrl: string }[] };
                const t = now();
                for (const item of page.items) {
                    const m = /\?seq=(\d+)/.exec(item.requestUrl);
                    if (m && !listedAt.has(Number(m[1]))) listedAt.set(Number(m[1]), t);
                }
                await new Promise((r) => setTimeout(r, 10));
            }
        })();
        const agent = new Agent({ keepAlive: true, maxSockets: 8 });
        const total = RATE * SECONDS;
        const start = now();
        const sends: Promise<void>[] = [];
        for (let seq = 0; seq < total; seq++) {
            const due = start + (seq * 1000) / RATE;
            const wait = due - now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            sends.push(post(`${a!.url}/webhook/${hook}?seq=${seq}`, agent).then((status) => {
                if (status === 200) answered.set(seq, now());
            }));
        }
        await Promise.all(sends);
        await new Promise((r) => setTimeout(r, 1500));
        polling = false;
        await poller;
        close();
        agent.destroy();
        const listed: number[] = [];
        const streamed: number[] = [];
        let missing = 0;
        for (const [seq, t] of answered) {
            const l = listedAt.get(seq);
            const s = streamedAt.get(seq);
            if (l === undefined || s === undefined) missing++;
            if (l !== undefined) listed.push(Math.max(0, l - t));
            if (s !== undefined) streamed.push(Math.max(0, s - t));
        }
        return { listed, streamed, sent: total, missing };
    } finally {
        await Promise.all([a!.stop(), b!.stop()]);
        for (const dir of dirs) removeDir(dir);
    }
}

ensureBuilt();
const pg = await startPgServer();
const rows: unknown[][] = [];
const listedP99: number[] = [];
const streamedP99: number[] = [];
let allSeen = true;
try {
    for (let r = 1; r <= ROUNDS; r++) {
        const res = await round(await pg.createDatabase('fresh'));
        listedP99.push(pct(res.listed, 0.99));
        streamedP99.push(pct(res.streamed, 0.99));
        allSeen &&= res.missing === 0;
        rows.push([r, res.sent, pct(res.listed, 0.5).toFixed(0), pct(res.listed, 0.99).toFixed(0), pct(res.streamed, 0.5).toFixed(0), pct(res.streamed, 0.99).toFixed(0), res.missing]);
    }
} finally {
    await pg.stop();
}
console.log(`Freshness across two instances on one PostgreSQL: ${ROUNDS} rounds, ${RATE} captures/s for ${SECONDS} s to A, read on B, Node ${process.version}\n`);
console.log(table(['round', 'captures', 'listed p50 ms', 'listed p99 ms', 'streamed p50 ms', 'streamed p99 ms', 'not seen on B'], rows));
const l = median(listedP99) as number;
const s = median(streamedP99) as number;
console.log(`\nmedian p99 listed on B: ${l.toFixed(0)} ms (target < ${TARGET_P99_MS} ms) ${l < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
console.log(`median p99 streamed on B: ${s.toFixed(0)} ms (target < ${TARGET_P99_MS} ms) ${s < TARGET_P99_MS ? 'PASS' : 'FAIL'}`);
console.log(`every capture seen on B: ${allSeen ? 'yes' : 'NO'}`);
process.exitCode = allSeen ? 0 : 1;
