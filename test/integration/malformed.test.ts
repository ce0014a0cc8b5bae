import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';

/** Writes raw bytes and collects everything until the server closes (or `waitMs` passes). */
function rawExchange(port: number, bytes: string, waitMs = 3000): Promise<string> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
        setTimeout(() => socket.destroy(), waitMs).unref();
        let out = '';
        socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
    });
}

describe('hostile input never crashes the service', () => {
    let svc: TestService;
    let port: number;
    beforeAll(async () => {
        svc = await startTestService();
        port = Number(new URL(svc.url).port);
    });
    afterAll(() => svc.close());

    /** Resolves when the server has seen the close of the next connection it accepts (the raw one the test opens next). */
    const serverSawClose = (): Promise<void> =>
        new Promise((resolve) => svc.server.once('connection', (socket: Socket) => socket.once('close', () => resolve())));

    const stored = async (query = ''): Promise<number> => (await json<{ total: number }>(await svc.fetch(`/logs?limit=1${query}`))).total;

    /**
     * Sends a good request and reads its event back. The single writer commits in arrival order and
     * answers after the commit, so once this event is listed every commit enqueued before it has landed:
     * a malformed request committed late would be counted by now.
     */
    async function barrier(): Promise<void> {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'barrier' });
        assert.equal(res.status, 200);
        await findEvent(svc, res.headers.get('x-request-id'));
    }

    it('answers unparseable HTTP with a JSON 400, and stores nothing', async () => {
        const before = await stored();
        const closed = serverSawClose();
        const out = await rawExchange(port, `GARBAGE /webhook/${svc.webhookId}\r\n\r\n`);
        assert.match(out, /^HTTP\/1\.1 400 Bad Request/);
        assert.match(out, /"error":"Bad Request"/);
        await closed;
        await barrier();
        assert.equal(await stored(), before + 1, 'only the barrier was stored');
    });

    it('answers oversized headers with 431, and stores nothing', async () => {
        const before = await stored();
        const closed = serverSawClose();
        const out = await rawExchange(port, `POST /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\nhi`);
        assert.match(out, /^HTTP\/1\.1 431/);
        await closed;
        await barrier();
        assert.equal(await stored(), before + 1, 'only the barrier was stored');
    });

    it('survives odd paths, encodings and methods', async () => {
        const paths = ['/webhook/%E0%A4%A', '/webhook/', '/webhook//x', `/webhook/${svc.webhookId}?%zz=%%`, '/logs/%00', '/logs/..%2f..%2fetc%2fpasswd/payload', '//', '/info?fields=__proto__'];
        for (const p of paths) {
            const res = await svc.fetch(p);
            assert.ok(res.status < 500, `${p} answered ${res.status}`);
        }
        const odd = await rawExchange(port, `PROPFIND /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`);
        assert.match(odd, /^HTTP\/1\.1 200/);
        assert.equal((await svc.fetch('/health')).status, 200);
    });

    it('keeps a truncated upload from being stored and keeps serving', async () => {
        const before = await stored();
        const closed = serverSawClose();
        await rawExchange(port, `POST /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part`, 300);
        // The server has handled the abandoned connection before the barrier request is even sent.
        await closed;
        await barrier();
        assert.equal(await stored(), before + 1, 'only the barrier was stored');
        assert.equal(await stored('&body=only%20part'), 0, 'no event holds the truncated body');
    });
});
