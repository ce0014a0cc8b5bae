import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pgPass, releaseStorage, storageEnv } from '../helpers/pg-pass.js';
import { allFiles } from '../helpers/files.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { openRawSse } from '../stream/sse-client.js';
import { until } from '../helpers/until.js';

// Issue 33 item 4: `/webhook/<id>/p1/<authKey>` stored the key in clear in `requestUrl`, the dataset
// and the WAL. The key must not land in storage wherever the sender puts it: a path segment, a query
// name or value, a header value, each as sent or percent-encoded.

const KEY = `k${randomBytes(30).toString('base64url')}`;
const pct = (text: string, hex: (h: string) => string): string => [...text].map((c) => `%${hex(c.charCodeAt(0).toString(16).padStart(2, '0'))}`).join('');
const UPPER = pct(KEY, (h) => h.toUpperCase());
const LOWER = pct(KEY, (h) => h.toLowerCase());
// Half of it as sent, half escaped: no fixed spelling but the ones above finds it, so it is searched for too.
const MIXED = KEY.slice(0, 20) + UPPER.slice(20 * 3);
const NEEDLES = [...new Set([KEY, UPPER, LOWER, MIXED, encodeURIComponent(KEY)])];

/** Sends a request with exactly these bytes as its target; resolves the status. */
function sendRaw(port: number, method: string, target: string, headers: Record<string, string>, body = '{"n":1}'): Promise<number> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        const lines = [`${method} ${target} HTTP/1.1`, 'Host: x', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
        for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (c: string) => (answer += c));
        socket.on('error', reject);
        socket.on('close', () => resolve(Number(answer.slice(9, 12))));
    });
}


/** Each spelling of the key found in `text`, named by where. */
const leaks = (where: string, text: string): string[] => NEEDLES.filter((n) => text.includes(n)).map((n) => `${where}: ${n === KEY ? 'the key' : n}`);

/** Every row of every table of the service's database as text, and every bytea value as its bytes. */
async function databaseLeaks(url: string): Promise<{ found: string[]; tables: number; rows: number }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const found: string[] = [];
    let rows = 0;
    try {
        const tables = (await client.query<{ name: string }>("SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")).rows;
        for (const { name } of tables) {
            const text = (await client.query<{ t: string }>(`SELECT t::text AS t FROM ${name} t`)).rows;
            rows += text.length;
            found.push(...leaks(`table ${name}`, text.map((r) => r.t).join('\n')));
        }
        const binary = (await client.query<{ tab: string; col: string }>("SELECT quote_ident(table_name) AS tab, quote_ident(column_name) AS col FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'bytea'")).rows;
        for (const { tab, col } of binary) {
            for (const r of (await client.query<{ b: Buffer | null }>(`SELECT ${col} AS b FROM ${tab}`)).rows) {
                if (r.b) found.push(...leaks(`${tab}.${col} bytes`, r.b.toString('latin1')));
            }
        }
        return { found, tables: tables.length, rows };
    } finally {
        await client.end();
    }
}

const services: TestService[] = [];
let receiver: Receiver | undefined;
afterAll(async () => {
    for (const svc of services) await svc.close().catch(() => undefined);
    await receiver?.close();
});

describe('regression: the authKey sent in a path segment was stored in clear (requestUrl, dataset, WAL)', () => {
    it('the key in a path segment, a query name or value and a header value, raw or percent-encoded, reaches no view and no byte of storage', async () => {
        receiver = await startReceiver();
        const svc = await startTestService({ input: { authKey: KEY, rateLimitPerMinute: 0, forwardUrl: `${receiver.url}/fwd` }, env: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
        services.push(svc);
        const auth = { authorization: `Bearer ${KEY}` };
        const sse = await openRawSse(`${svc.url}/log-stream`, auth);
        const port = Number(new URL(svc.url).port);
        const hook = `/webhook/${svc.webhookId}`;
        const sends: [method: string, target: string, headers: Record<string, string>, body?: string][] = [
            ['POST', `${hook}/p1/${KEY}`, {}],
            ['POST', `${hook}/p1/${UPPER}/tail`, {}],
            ['PUT', `${hook}/${LOWER}`, {}],
            ['POST', `${hook}/a/x${MIXED}y/b?n=1`, {}],
            ['POST', `${hook}?${KEY}=1&note=is+${KEY}+here&a=b`, {}],
            ['POST', `${hook}?n=${UPPER}&${LOWER}=v&z=${MIXED}`, {}],
            ['POST', `${hook}/sub`, { 'X-Custom': `before ${KEY} after`, 'X-Encoded': `v=${UPPER}`, Referer: `http://example.com${hook}/p1/${KEY}?q=${LOWER}` }],
            // A preflight whose requested headers the answer echoes.
            ['OPTIONS', `${hook}/${KEY}`, { 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': `x-${KEY}` }, ''],
            // A body above the offload threshold goes to the payload store; the key is in its path.
            ['POST', `${hook}/big/${UPPER}`, {}, JSON.stringify({ pad: 'x'.repeat(6 * 1024 * 1024) })],
        ];
        for (const [method, target, headers, body] of sends) expect(await sendRaw(port, method, target, { ...auth, ...headers }, body), target).toBe(200);

        const listed = async () => json<{ items: { id: string; requestUrl: string }[] }>(await svc.fetch('/logs?limit=100', { headers: auth }));
        const list = await until('every capture listed', async () => {
            const got = await listed();
            return got.items.length >= sends.length && got;
        }, 10_000);
        expect(list.items).toHaveLength(sends.length);
        const found = leaks('/logs', JSON.stringify(list));
        // Only the segments holding the key change; every other byte of the URL is the sender's.
        const urls = list.items.map((i) => i.requestUrl);
        expect(urls).toContain(`${hook}/p1/%5BREDACTED%5D`);
        expect(urls).toContain(`${hook}/p1/%5BREDACTED%5D/tail`);
        expect(urls).toContain(`${hook}/a/%5BREDACTED%5D/b?n=1`);
        expect(urls).toContain(`${hook}?%5BREDACTED%5D=%5BREDACTED%5D&note=%5BREDACTED%5D&a=b`);
        for (const { id } of list.items) {
            const detail = await svc.fetch(`/logs/${id}`, { headers: auth });
            expect(detail.status).toBe(200);
            found.push(...leaks(`/logs/${id}`, await detail.text()));
        }
        const har = await svc.fetch('/logs?format=har&limit=100', { headers: auth });
        expect(har.status).toBe(200);
        found.push(...leaks('HAR', await har.text()));
        await sse.until((s) => s.events().length >= sends.length, 20_000);
        found.push(...leaks('live stream', sse.raw));
        sse.close();
        await receiver.waitFor(sends.length, 20_000);

        await svc.close({ keepDir: true });
        services.splice(services.indexOf(svc), 1);
        const files = (await allFiles(svc.dir)).filter((f) => basename(f) !== 'INPUT.json');
        expect(files.some((f) => f.includes('datasets'))).toBe(true);
        for (const file of files) found.push(...leaks(file, (await readFile(file)).toString('latin1')));
        if (pgPass) {
            const { DATABASE_URL } = await storageEnv(svc.dir);
            const db = await databaseLeaks(DATABASE_URL!);
            expect(db.tables).toBeGreaterThan(5);
            expect(db.rows).toBeGreaterThan(sends.length);
            found.push(...db.found);
        }
        await rm(svc.dir, { recursive: true, force: true });
        await releaseStorage(svc.dir);
        expect(found).toEqual([]);
    }, 120_000);
});
