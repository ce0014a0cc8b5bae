import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { INERT_CSP } from '../../src/lib/answer-headers.js';
import { rawExchange } from '../helpers/raw-socket.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, sendJson, type ErrorView } from '../manage/helpers.js';

/** One answer read off a kept-alive socket, with every header line as it came (repeats kept). */
interface Answer {
    status: number;
    lines: [string, string][];
    body: string;
}

/** An HTTP/1.1 client on one kept-alive socket that reads the bytes itself, so nothing is merged or forgiven. */
class KeptAliveClient {
    private buffer = Buffer.alloc(0);
    private wake: (() => void) | undefined;
    private constructor(private readonly socket: Socket) {
        socket.on('data', (chunk: Buffer) => {
            this.buffer = Buffer.concat([this.buffer, chunk]);
            this.wake?.();
        });
        socket.on('close', () => this.wake?.());
    }

    static open(port: number): Promise<KeptAliveClient> {
        return new Promise((resolve, reject) => {
            const socket = connect(port, '127.0.0.1', () => resolve(new KeptAliveClient(socket)));
            socket.once('error', reject);
        });
    }

    /** Sends one request and reads one answer: its body framed by Content-Length, none when `bodyless`. */
    async send(method: string, path: string, options: { body?: string; headers?: Record<string, string>; bodyless?: boolean } = {}): Promise<Answer> {
        const body = options.body ?? '';
        const extra = Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
        this.socket.write(`${method} ${path} HTTP/1.1\r\nHost: test\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        const end = await this.until(() => {
            const at = this.buffer.indexOf('\r\n\r\n');
            return at < 0 ? undefined : at;
        });
        const [statusLine, ...rest] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
        assert.match(statusLine!, /^HTTP\/1\.1 \d{3} /, `an answer starts with a status line, got ${JSON.stringify(statusLine)}`);
        const lines = rest.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
        const lengths = lines.filter(([name]) => name.toLowerCase() === 'content-length');
        const length = options.bodyless || lengths.length !== 1 ? 0 : Number(lengths[0]![1]);
        const total = end + 4 + length;
        await this.until(() => (this.buffer.length >= total ? total : undefined));
        const answer = { status: Number(statusLine!.split(' ')[1]), lines, body: this.buffer.subarray(end + 4, total).toString('utf8') };
        this.buffer = this.buffer.subarray(total);
        return answer;
    }

    /** The bytes left over after the last answer read (a stray body would show here). */
    async leftover(waitMs = 150): Promise<string> {
        await new Promise((r) => setTimeout(r, waitMs));
        return this.buffer.toString('latin1');
    }

    close(): void {
        this.socket.destroy();
    }

    private async until<T>(ready: () => T | undefined): Promise<T> {
        const deadline = Date.now() + 5000;
        for (;;) {
            const value = ready();
            if (value !== undefined) return value;
            if (this.socket.destroyed || Date.now() > deadline) throw new Error(`no whole answer; have ${JSON.stringify(this.buffer.toString('latin1').slice(0, 400))}`);
            await new Promise<void>((r) => {
                this.wake = r;
                setTimeout(r, 100);
            });
        }
    }
}

/** The value of each header by lower-cased name, failing if any name came more than once, whatever its case. */
function onceEach(answer: Answer): Record<string, string> {
    const seen: Record<string, string> = {};
    for (const [name, value] of answer.lines) {
        const lower = name.toLowerCase();
        assert.ok(!(lower in seen), `header ${name} sent twice: ${JSON.stringify(answer.lines)}`);
        seen[lower] = value;
    }
    return seen;
}

/** Checks what every answer on /webhook/* must hold: inert, each header once, framing ours. */
function checkFraming(answer: Answer, bodyless: boolean): Record<string, string> {
    const headers = onceEach(answer);
    assert.equal(headers['content-security-policy']?.startsWith(INERT_CSP), true, `CSP: ${headers['content-security-policy']}`);
    assert.equal(headers['x-content-type-options'], 'nosniff');
    assert.equal(headers['transfer-encoding'], undefined);
    if (bodyless) {
        assert.equal(headers['content-length'], undefined, 'a bodyless answer has no Content-Length');
        assert.equal(answer.body, '');
    } else {
        assert.equal(Number(headers['content-length']), Buffer.byteLength(answer.body), 'Content-Length is the body length');
    }
    return headers;
}

const REFUSED = ['content-length', 'Transfer-Encoding', 'CONNECTION', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-authorization', 'proxy-foo', 'Service-Worker-Allowed'];

describe('answers on /webhook/* keep HTTP framing ours and carry the inert headers', () => {
    let svc: TestService;
    let port: number;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 1000 } });
        port = Number(new URL(svc.url).port);
    });
    afterAll(() => svc.close());

    it('every kind of answer has one Content-Length equal to its body (none when bodyless), each header once, and the next request on the connection gets its own answer', async () => {
        const odd = await createWebhook(svc, {
            response: {
                body: 'a,b',
                headers: {
                    'content-type': 'text/csv',
                    'X-REQUEST-ID': 'mine',
                    'access-control-allow-origin': 'https://a.example',
                    'x-ratelimit-limit': '7',
                    'content-security-policy': "img-src 'none'",
                    'x-content-type-options': 'off',
                },
            },
        });
        const seq = await createWebhook(svc, { response: { sequence: [{ statusCode: 201, body: { step: 1 }, headers: { 'CONTENT-TYPE': 'application/vnd.step+json' } }] } });
        const failing = await createWebhook(svc, { response: { failureRate: 1, retryAfterSeconds: 7, headers: { 'retry-after': '9' } } });
        const noContent = await createWebhook(svc, { response: { statusCode: 204, body: 'never sent' } });
        const notModified = await createWebhook(svc, { response: { statusCode: 304, body: 'never sent' } });
        const hook = `/webhook/${svc.webhookId}`;
        const client = await KeptAliveClient.open(port);
        try {
            const plain = { 'Content-Type': 'text/plain' };
            const def = checkFraming(await client.send('POST', hook, { body: 'x', headers: plain }), false);
            assert.equal(def['content-type'], 'text/plain; charset=utf-8');
            assert.match(def['x-ratelimit-limit'] ?? '', /^\d+$/, 'the ingest limit figures are there to be replaced below');

            const a = await client.send('POST', `/webhook/${odd.id}`, { body: 'x', headers: plain });
            const h = checkFraming(a, false);
            assert.equal(a.body, 'a,b');
            assert.deepEqual([h['content-type'], h['x-request-id'], h['access-control-allow-origin'], h['x-ratelimit-limit']], ['text/csv', 'mine', 'https://a.example', '7']);
            assert.equal(h['content-security-policy'], `${INERT_CSP}, img-src 'none'`);

            const s = await client.send('POST', `/webhook/${seq.id}`, { body: 'x', headers: plain });
            assert.equal(s.status, 201);
            assert.equal(checkFraming(s, false)['content-type'], 'application/vnd.step+json');
            assert.deepEqual(JSON.parse(s.body), { step: 1 });

            const f = await client.send('POST', `/webhook/${failing.id}`, { body: 'x', headers: plain });
            assert.equal(f.status, 503);
            assert.equal(checkFraming(f, false)['retry-after'], '9');

            const overridden = await client.send('POST', `${hook}?__status=503`, { body: 'x', headers: plain });
            assert.equal(overridden.status, 503);
            assert.equal(checkFraming(overridden, false)['content-type'], 'application/json; charset=utf-8');
            assert.equal((JSON.parse(overridden.body) as { webhookId: string }).webhookId, svc.webhookId);

            const badStatus = await client.send('POST', `${hook}?__status=abc`, { body: 'x', headers: plain });
            assert.equal(badStatus.status, 400);
            checkFraming(badStatus, false);

            const nc = await client.send('POST', `/webhook/${noContent.id}`, { body: 'x', headers: plain, bodyless: true });
            assert.equal(nc.status, 204);
            checkFraming(nc, true);
            const nm = await client.send('GET', `/webhook/${notModified.id}`, { bodyless: true });
            assert.equal(nm.status, 304);
            checkFraming(nm, true);
            const head = await client.send('HEAD', hook, { bodyless: true });
            assert.equal(head.status, 200);
            checkFraming(head, true);

            const preflight = await client.send('OPTIONS', hook, { headers: { Origin: 'https://b.example', 'Access-Control-Request-Method': 'PUT' } });
            assert.equal(checkFraming(preflight, false)['access-control-allow-origin'], '*');

            const unknown = await client.send('POST', '/webhook/no-such-hook', { body: 'x', headers: plain });
            assert.equal(unknown.status, 404);
            checkFraming(unknown, false);

            // The connection still frames correctly: the last request gets its own answer.
            const last = await client.send('POST', hook, { body: 'y', headers: plain });
            assert.equal(last.status, 200);
            assert.equal(last.body, 'OK');
            assert.notEqual(checkFraming(last, false)['x-request-id'], def['x-request-id']);
            assert.equal(await client.leftover(), '', 'no stray bytes after the last answer');
        } finally {
            client.close();
        }
        // The stored answer is the one sent: each header once, the inert ones included.
        const list = await json<{ items: { id: string; webhookId: string }[] }>(await svc.fetch(`/logs?webhookId=${odd.id}`));
        const stored = await json<{ responseHeaders: Record<string, string> }>(await svc.fetch(`/logs/${list.items[0]!.id}`));
        const names = Object.keys(stored.responseHeaders).map((n) => n.toLowerCase());
        assert.equal(new Set(names).size, names.length, JSON.stringify(stored.responseHeaders));
        assert.equal(stored.responseHeaders['X-Content-Type-Options'], 'nosniff');
        assert.equal(stored.responseHeaders['X-REQUEST-ID'], 'mine');
    });

    it('a request Node cannot parse gets its raw 400 with the inert headers too', async () => {
        const answer = await rawExchange(port, 'POST /webhook/x HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n');
        assert.equal(answer.status, 400);
        assert.equal(answer.headers['content-security-policy'], INERT_CSP);
        assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    });

    it('refuses each framing, hop-by-hop or service-worker header with 400 naming it, at POST, at PATCH and in a sequence step', async () => {
        const hook = await createWebhook(svc, { response: { body: 'kept' } });
        for (const name of REFUSED) {
            const sends: [string, string, unknown, string][] = [
                ['POST', '/webhooks', { response: { headers: { [name]: '2' } } }, `response.headers.${name}`],
                ['PATCH', `/webhooks/${hook.id}`, { response: { headers: { 'X-Ok': '1', [name]: '/' } } }, `response.headers.${name}`],
                ['POST', '/webhooks', { response: { sequence: [{ statusCode: 200 }, { headers: { [name]: 'gzip' } }] } }, `response.sequence.1.headers.${name}`],
            ];
            for (const [method, path, body, where] of sends) {
                const res = await sendJson(svc, method, path, body);
                assert.equal(res.status, 400, `${method} ${path} ${name}`);
                const error = await json<ErrorView>(res);
                assert.deepEqual(error.details?.map((d) => d.path), [where]);
                assert.ok(error.details![0]!.message.startsWith(`${name} `), error.details![0]!.message);
            }
        }
        const kept = await json<{ response: unknown }>(await svc.fetch(`/webhooks/${hook.id}`));
        assert.deepEqual(kept.response, { body: 'kept' }, 'a refused PATCH changes nothing');
    });
});

describe('defaultResponseHeaders in the run input', () => {
    it('stops the start with one clear line naming a framing or service-worker header', async () => {
        for (const name of ['Content-Length', 'transfer-encoding', 'Proxy-Foo', 'Service-Worker-Allowed']) {
            await assert.rejects(
                startTestService({ input: { defaultResponseHeaders: { 'X-Ok': '1', [name]: '1' } } }),
                (error: Error) => error.message.startsWith(`Invalid input field "defaultResponseHeaders.${name}": ${name} `),
                name,
            );
        }
    });
});
