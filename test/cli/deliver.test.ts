import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { sign as githubSign, verify as githubVerify } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { removeDir, startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { startReceiver, type Received, type Receiver } from '../replay/receiver.js';
import { until } from '../helpers/until.js';
import { runCli, stateDir, type ListenProcess } from './listen-process.js';

// What `listen` sends for each capture, and what it shows and records. Real processes: the service
// (`node dist/main.js`), the command (`node dist/cli/main.js`) and a local receiver.

const KEY = 'k-listen-1';
const SECRET = 'whsec_listen_test';
const stripe = new Stripe('sk_test_unused');

/** Sends a raw request (node:http, so hop-by-hop headers go out as given); answers the status. */
function send(svc: ServiceProcess, path: string, o: { method?: string; headers?: Record<string, string>; body?: Buffer | Buffer[] } = {}): Promise<number> {
    return new Promise((resolve, reject) => {
        const req = request(`${svc.url}${path}`, { method: o.method ?? 'POST', headers: o.headers ?? {} }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        const parts = o.body === undefined ? [] : Array.isArray(o.body) ? o.body : [o.body];
        for (const part of parts) req.write(part);
        req.end();
    });
}

const keyed = (path: string): string => `${path}${path.includes('?') ? '&' : '?'}key=${KEY}`;

describe('listen: what it sends, shows and records', { timeout: 90_000 }, () => {
    let svc: ServiceProcess;
    let webhook: string;
    const running: ListenProcess[] = [];
    const cleanups: (() => Promise<void>)[] = [];
    beforeAll(async () => {
        svc = await startServiceProcess({
            input: { urlCount: 1, authKey: KEY, maxPayloadSize: 25 * 1024 * 1024, redactBodyPaths: ['body.secret'], customScript: 'if (event.query && event.query.rewrite) { event.body = { rewritten: true }; }' },
        });
        const info = (await (await svc.fetch(keyed('/info'))).json()) as { system: { activeWebhooks: { id: string }[] } };
        webhook = info.system.activeWebhooks[0]!.id;
    });
    afterEach(async () => {
        for (const cli of running.splice(0)) await cli.kill();
        for (const clean of cleanups.splice(0)) await clean();
    });
    afterAll(async () => {
        await svc?.stop();
        if (svc) await removeDir(svc.dir);
    });

    /** A receiver and the command listening to the service from now on, delivering to `<receiver>/hooks`. */
    async function listening(reply?: Parameters<typeof startReceiver>[0], args: string[] = []): Promise<{ receiver: Receiver; cli: ListenProcess }> {
        const receiver = await startReceiver(reply);
        const state = await stateDir();
        cleanups.push(() => receiver.close(), () => state.remove());
        const cli = runCli(['listen', svc.url, '--key', KEY, '--forward-to', `${receiver.url}/hooks`, '--state', state.file, ...args]);
        running.push(cli);
        await cli.ready();
        return { receiver, cli };
    }

    /** The bytes GET /logs/:id/payload serves. */
    const payload = async (id: string): Promise<Buffer> => Buffer.from(await (await svc.fetch(keyed(`/logs/${id}/payload`))).arrayBuffer());
    const eventOf = (got: Received): string => String(got.headers['x-webhook-debugger-event']);

    it('sends the captured method, joined path, query without the key, headers without hop-by-hop, masked or Host ones, and the payload byte-exact', async () => {
        const { receiver } = await listening();
        const json = Buffer.from('{ "a" :  1 ,"b":[1, 2 ] ,\n "c": "\\u00e9"}');
        const text = Buffer.from('héllo ✓\r\nline two\u0000?', 'utf8');
        const binary = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x0a, 0x41]);
        const original = Buffer.from('{ "kept" : "as sent" }');
        const hop = { connection: 'keep-alive', 'keep-alive': 'timeout=5', te: 'trailers', 'proxy-authorization': 'Basic eA==', 'accept-encoding': 'gzip, br' };
        // Chunked on the way in (no Content-Length), in two pieces.
        assert.equal(await send(svc, keyed('/webhook/' + webhook + '/a/b?x=1&y=%20z'), { method: 'PUT', headers: { 'content-type': 'application/json', 'x-custom': 'one', authorization: 'Bearer sender-secret', cookie: 'c=1', ...hop }, body: [json.subarray(0, 7), json.subarray(7)] }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}?lang=fr`), { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/bin`), { headers: { 'content-type': 'application/octet-stream' }, body: binary }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/empty`), { method: 'POST' }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/gone/1`), { method: 'DELETE' }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/script?rewrite=1`), { headers: { 'content-type': 'application/json' }, body: original }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/redacted`), { headers: { 'content-type': 'application/json' }, body: Buffer.from('{"secret": "s3", "n": 1}') }), 200);
        const got = await receiver.waitFor(7, 20_000);
        assert.deepEqual(got.map((r) => `${r.method} ${r.url}`), ['PUT /hooks/a/b?x=1&y=%20z', 'POST /hooks?lang=fr', 'POST /hooks/bin', 'POST /hooks/empty', 'DELETE /hooks/gone/1', 'POST /hooks/script?rewrite=1', 'POST /hooks/redacted']);
        const [first] = got;
        assert.equal(first!.headers['x-custom'], 'one');
        assert.equal(first!.headers['content-type'], 'application/json');
        for (const name of ['authorization', 'cookie', 'te', 'keep-alive', 'proxy-authorization', 'accept-encoding', 'transfer-encoding']) assert.equal(first!.headers[name], undefined, `${name} was sent`);
        assert.equal(first!.headers.host, new URL(receiver.url).host);
        assert.equal(first!.headers['x-webhook-debugger-webhook'], webhook);
        assert.deepEqual(first!.body, json);
        for (const r of got) {
            assert.deepEqual(r.body, await payload(eventOf(r)), `${r.method} ${r.url}: not the payload's bytes`);
            assert.equal(r.headers['content-length'] ?? '0', String(r.body.length));
        }
        assert.deepEqual(got[1]!.body, text);
        assert.deepEqual(got[2]!.body, binary);
        assert.equal(got[3]!.body.length, 0);
        // A body a custom script rewrote: its payload is the original, and so is what is delivered.
        assert.deepEqual(got[5]!.body, original);
        // Redacted at rest (redactBodyPaths): the stored bytes are all that exists, and what is sent.
        assert.deepEqual(JSON.parse(got[6]!.body.toString('utf8')), { secret: '[REDACTED]', n: 1 });
        for (const r of got) assert.ok(!r.url.includes(KEY) && !JSON.stringify(r.headers).includes(KEY), 'the key reached the local server');
    });

    it('delivers Stripe and GitHub events whose signatures the receiver verifies with the official libraries', async () => {
        const verdicts: string[] = [];
        const { receiver } = await listening((got, res) => {
            void (async () => {
                const text = got.body.toString('utf8');
                try {
                    if (got.url.endsWith('/stripe')) stripe.webhooks.constructEvent(text, String(got.headers['stripe-signature']), SECRET);
                    else if (!(await githubVerify(SECRET, text, String(got.headers['x-hub-signature-256'])))) throw new Error('github: bad signature');
                    verdicts.push('ok');
                    res.writeHead(200).end('verified');
                } catch (error) {
                    verdicts.push((error as Error).message);
                    res.writeHead(400).end('bad signature');
                }
            })();
        });
        const body = JSON.stringify({ id: 'evt_listen', object: 'event', type: 'charge.succeeded', data: { object: { amount: 1999 } } }, null, 2);
        const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET });
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/stripe`), { headers: { 'content-type': 'application/json', 'stripe-signature': header }, body: Buffer.from(body) }), 200);
        const push = '{"ref":"refs/heads/main",\n  "pusher": {"name": "é"}}';
        const github = { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': await githubSign(SECRET, push) };
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/github`), { headers: github, body: Buffer.from(push) }), 200);
        await receiver.waitFor(2);
        await until('both verdicts', () => verdicts.length === 2);
        assert.deepEqual(verdicts, ['ok', 'ok']);
    });

    it('streams a 20 MB offloaded body to the receiver byte-exact', async () => {
        const { receiver } = await listening();
        // Bytes no compression or text handling would leave alone: every value, in a pseudo-random order.
        const big = Buffer.alloc(20 * 1024 * 1024);
        for (let i = 0, x = 7; i < big.length; i++) big[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
        const parts = Array.from({ length: 20 }, (_, i) => big.subarray(i * 1024 * 1024, (i + 1) * 1024 * 1024));
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/big`), { headers: { 'content-type': 'application/octet-stream' }, body: parts }), 200);
        const [got] = await receiver.waitFor(1, 60_000);
        const stored = (await (await svc.fetch(keyed(`/logs/${eventOf(got!)}`))).json()) as { body: { offloaded?: boolean } };
        assert.equal(stored.body.offloaded, true, 'the body was not offloaded');
        assert.equal(got!.body.length, big.length);
        assert.equal(createHash('sha256').update(got!.body).digest('hex'), createHash('sha256').update(big).digest('hex'));
        assert.equal(got!.headers['content-length'], String(big.length));
    });

    it("shows a local 4xx/5xx as the answer and moves on, records every delivery on its capture, and --verbose prints the local answer", async () => {
        const { receiver, cli } = await listening((got, res) => (got.url.includes('fail') ? res.writeHead(503, { 'x-why': 'testing' }).end('busy right now') : res.end('fine')), ['--verbose']);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/fail`), { body: Buffer.from('one') }), 200);
        assert.equal(await send(svc, keyed(`/webhook/${webhook}/next`), { body: Buffer.from('two') }), 200);
        const got = await receiver.waitFor(2);
        assert.deepEqual(got.map((r) => r.url), ['/hooks/fail', '/hooks/next']);
        const [failed, next] = got.map(eventOf);
        await until('both delivery lines', () => cli.stdout().includes(next!) && cli.stdout().includes(failed!));
        const lines = cli.stdout().split('\n');
        const failLine = lines.find((l) => l.includes(failed!))!;
        assert.match(failLine, /^\d\d:\d\d:\d\d\.\d{3}  POST \/hooks\/fail  503  [\d.]+ ms  /);
        assert.match(lines.find((l) => l.includes(next!))!, /POST \/hooks\/next  200  /);
        assert.ok(cli.stdout().includes('x-why: testing') && cli.stdout().includes('busy right now'), cli.stdout());
        // The records reach the service in the background.
        const replaysOf = async (id: string): Promise<{ via?: string; targetUrl: string; targetResponseCode: number | null; durationMs?: number; error: string | null }[]> =>
            ((await (await svc.fetch(keyed(`/logs/${id}`))).json()) as { replays: [] }).replays;
        for (const [id, status, path] of [[failed!, 503, '/hooks/fail'], [next!, 200, '/hooks/next']] as const) {
            let replays = await replaysOf(id);
            for (let i = 0; i < 100 && replays.length === 0; i++) {
                await new Promise((r) => setTimeout(r, 50));
                replays = await replaysOf(id);
            }
            assert.equal(replays.length, 1, JSON.stringify(replays));
            assert.equal(replays[0]!.via, 'listen');
            assert.equal(replays[0]!.targetUrl, `${receiver.url}${path}`);
            assert.equal(replays[0]!.targetResponseCode, status);
            assert.equal(replays[0]!.error, null);
            assert.equal(typeof replays[0]!.durationMs, 'number');
        }
    });

    it('--json prints one JSON object per delivery on stdout, and every message on stderr', async () => {
        const { receiver, cli } = await listening(undefined, ['--json']);
        for (let i = 0; i < 3; i++) assert.equal(await send(svc, keyed(`/webhook/${webhook}/j${i}`), { body: Buffer.from(`{"n":${i}}`) }), 200);
        await receiver.waitFor(3);
        await cli.stop();
        const lines = cli.stdout().trim().split('\n');
        assert.equal(lines.length, 3, cli.stdout());
        const objects = lines.map((l) => JSON.parse(l) as { path: string; status: number; eventId: string; method: string; durationMs: number });
        assert.deepEqual(objects.map((o) => `${o.method} ${o.path} ${o.status}`), ['POST /hooks/j0 200', 'POST /hooks/j1 200', 'POST /hooks/j2 200']);
        assert.match(cli.stderr(), /Ready!/);
    });
});
