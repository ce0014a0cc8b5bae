import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { rawRequest, type RawResponse } from '../helpers/http.js';
import { rawExchange } from '../helpers/raw-socket.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** An IPv4 address of this machine that is not loopback, if it has one. */
const outsideAddress = Object.values(networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address;
const NO_OUTSIDE = 'this machine has no non-loopback IPv4 address: the "another local address" assertion cannot run';

/** Whether a TCP connection to `host:port` is accepted. */
function connects(host: string, port: number): Promise<boolean> {
    return new Promise((resolve) => {
        const socket = connect(port, host, () => (socket.destroy(), resolve(true)));
        socket.on('error', () => resolve(false));
    });
}

const portOf = (svc: TestService): number => Number(new URL(svc.url).port);
const WARNING = /^WARN Listening on .* without an authKey/;

/** A request with a Host header of the test's choosing (fetch forbids setting Host). */
function withHost(svc: TestService, path: string, host: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
    return rawRequest(`${svc.url}${path}`, { method: options.method ?? 'GET', headers: { host, ...options.headers }, ...(options.body === undefined ? {} : { chunks: [Buffer.from(options.body)] }) });
}

describe('the laptop default: loopback only without a key', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ env: { ACTOR_WEB_SERVER_URL: 'https://hooks.example.test' } });
    });
    afterAll(() => svc.close());

    it('listens on 127.0.0.1 only, warns nothing, and refuses a connection to another address of this machine', async (t) => {
        assert.equal(svc.host, '127.0.0.1');
        assert.equal(svc.logs.filter((l) => WARNING.test(l)).length, 0);
        assert.equal(await connects('127.0.0.1', portOf(svc)), true);
        if (outsideAddress === undefined) return t.skip(NO_OUTSIDE);
        assert.equal(await connects(outsideAddress, portOf(svc)), false, `${outsideAddress} is refused`);
    });

    it('answers a foreign Host (DNS rebinding) with 403 on /logs and /, naming the way to allow it', async () => {
        for (const path of ['/logs', '/', '/webhooks']) {
            const res = await withHost(svc, path, 'evil.example');
            assert.equal(res.status, 403, path);
            assert.match(JSON.parse(res.body.toString()).message as string, /ACTOR_WEB_SERVER_URL.*authKey/);
        }
        assert.equal((await withHost(svc, '/logs', `evil.example:${portOf(svc)}`)).status, 403, 'with a port too');
    });

    it('still captures on /webhook/<id> and answers /health and /ready under a foreign Host', async () => {
        const capture = await withHost(svc, `/webhook/${svc.webhookId}`, 'evil.example', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'from anywhere' });
        assert.equal(capture.status, 200);
        assert.equal((await withHost(svc, '/health', 'evil.example')).status, 200);
        assert.equal((await withHost(svc, '/ready', 'evil.example')).status, 200);
    });

    it('lets loopback names and the configured public host through, with or without a port', async () => {
        const port = portOf(svc);
        for (const host of [`localhost:${port}`, 'localhost', `127.0.0.1:${port}`, `127.3.4.5:${port}`, `[::1]:${port}`, '[::1]', `app.localhost:${port}`, 'hooks.example.test', 'hooks.example.test:443', 'HOOKS.example.test']) {
            assert.equal((await withHost(svc, '/logs', host)).status, 200, host);
        }
        // HTTP/1.0 may omit Host; a browser never does.
        assert.match((await rawExchange(port, 'GET /info HTTP/1.0\r\n\r\n')).text, /^HTTP\/1\.1 200 /);
    });

    it('parses Host strictly: userinfo, spaces, lists, a second Host header and a look-alike are refused', async () => {
        for (const host of ['localhost@evil.example', 'evil.example@localhost', 'localhost evil.example', 'evil.example, localhost', 'localhost.evil.example', '127.0.0.1.evil.example', 'hooks.example.test:8443', '[::2]']) {
            assert.equal((await withHost(svc, '/logs', host)).status, 403, host);
        }
        const twice = await rawExchange(portOf(svc), 'GET /logs HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
        assert.ok([400, 403].includes(twice.status), `two Host headers: ${twice.status}`);
    });

    it('answers 415 to a management body that is not application/json, before reading it', async () => {
        const create = (headers: Record<string, string>): Promise<RawResponse> => withHost(svc, '/webhooks', 'localhost', { method: 'POST', headers, body: '{"name":"x"}' });
        const plain = await create({ 'content-type': 'text/plain' });
        assert.equal(plain.status, 415);
        assert.match(JSON.parse(plain.body.toString()).message as string, /application\/json/);
        assert.equal((await create({})).status, 415, 'a body without a Content-Type');
        assert.equal((await create({ 'content-type': 'application/x-www-form-urlencoded' })).status, 415);
        assert.equal((await create({ 'content-type': 'application/json-seq' })).status, 415);
        assert.equal((await create({ 'content-type': 'Application/JSON; charset=utf-8' })).status, 201, 'parameters and letter case are fine');
        const chunked = await withHost(svc, `/replay/${svc.webhookId}/x?url=http://example.com`, 'localhost', { method: 'POST', headers: { 'transfer-encoding': 'chunked' }, body: '{}' });
        assert.equal(chunked.status, 415, 'a chunked body without a Content-Type');
        assert.equal((await withHost(svc, '/webhooks', 'localhost', { method: 'POST', headers: { 'content-length': '0' } })).status, 201, 'no body needs no Content-Type');
    });

    it('answers 403 to a write from another browser origin, lets its own origin and the public one through, and leaves ingest open', async () => {
        const port = portOf(svc);
        const create = (origin: string, host = `127.0.0.1:${port}`): Promise<RawResponse> => withHost(svc, '/webhooks', host, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
        for (const origin of ['https://evil.example', 'null', `http://127.0.0.1:${port}.evil.example`, `http://evil.example:${port}`, `http://127.0.0.1:${port}/path`, `http://user@127.0.0.1:${port}`]) {
            assert.equal((await create(origin)).status, 403, origin);
        }
        assert.equal((await create(`http://127.0.0.1:${port}`)).status, 201, 'its own origin (the Host)');
        assert.equal((await create(`http://localhost:${port}`, `localhost:${port}`)).status, 201, 'its own origin by another loopback name');
        assert.equal((await create('https://hooks.example.test')).status, 201, 'the public base URL');
        const removed = await withHost(svc, `/logs?webhookId=${svc.webhookId}`, `127.0.0.1:${port}`, { method: 'DELETE', headers: { origin: 'https://evil.example' } });
        assert.equal(removed.status, 403, 'DELETE is a write');
        assert.equal((await withHost(svc, '/logs', `127.0.0.1:${port}`, { headers: { origin: 'https://evil.example' } })).status, 200, 'a read is not refused');
        const capture = await withHost(svc, `/webhook/${svc.webhookId}`, `127.0.0.1:${port}`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body: 'cross-site' });
        assert.equal(capture.status, 200, 'ingest from another origin is captured');
    });
});

describe('LISTEN_HOST widens the laptop default, with a warning when there is no key', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ env: { LISTEN_HOST: '0.0.0.0' } });
    });
    afterAll(() => svc.close());

    it('listens on every IPv4 interface and logs one warning line', async (t) => {
        assert.equal(svc.host, '0.0.0.0');
        assert.equal(svc.logs.filter((l) => WARNING.test(l)).length, 1, svc.logs.join('\n'));
        if (outsideAddress === undefined) return t.skip(NO_OUTSIDE);
        assert.equal(await connects(outsideAddress, portOf(svc)), true, `${outsideAddress} is reached`);
    });

    it('keeps the Host check: a foreign Host is still refused without a key', async () => {
        assert.equal((await withHost(svc, '/logs', 'evil.example')).status, 403);
    });
});

describe('with an authKey the laptop listens widely and trusts the key', () => {
    const KEY = 'laptop-default-key';
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: KEY } });
    });
    afterAll(() => svc.close());

    it('listens on every interface and warns nothing', async (t) => {
        assert.ok(['::', '0.0.0.0'].includes(svc.host), svc.host);
        assert.equal(svc.logs.filter((l) => WARNING.test(l)).length, 0);
        if (outsideAddress === undefined) return t.skip(NO_OUTSIDE);
        assert.equal(await connects(outsideAddress, portOf(svc)), true);
    });

    it('does not check Host: the key is the guard', async () => {
        assert.equal((await withHost(svc, '/logs', 'evil.example', { headers: { authorization: `Bearer ${KEY}` } })).status, 200);
        assert.equal((await withHost(svc, '/logs', 'evil.example')).status, 401);
    });

    it('still refuses a write from another origin, even with the key', async () => {
        const res = await withHost(svc, '/webhooks', 'evil.example', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, origin: 'https://evil.example.org', 'content-type': 'application/json' }, body: '{}' });
        assert.equal(res.status, 403);
        const own = await withHost(svc, '/webhooks', 'evil.example', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, origin: 'http://evil.example', 'content-type': 'application/json' }, body: '{}' });
        assert.equal(own.status, 201, 'the origin named by Host is its own');
    });
});
