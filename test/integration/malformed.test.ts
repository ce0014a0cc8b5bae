import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { json, startTestService, type TestService } from '../helpers/service.js';

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
    before(async () => {
        svc = await startTestService();
        port = Number(new URL(svc.url).port);
    });
    after(() => svc.close());

    it('answers unparseable HTTP with a JSON 400', async () => {
        const out = await rawExchange(port, 'GARBAGE\r\n\r\n');
        assert.match(out, /^HTTP\/1\.1 400 Bad Request/);
        assert.match(out, /"error":"Bad Request"/);
    });

    it('answers oversized headers with 431', async () => {
        const out = await rawExchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        assert.match(out, /^HTTP\/1\.1 431/);
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
        const before = await json<{ total: number }>(await svc.fetch('/logs?limit=1'));
        await rawExchange(port, `POST /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part`, 300);
        const afterList = await json<{ total: number }>(await svc.fetch('/logs?limit=1'));
        assert.equal(afterList.total, before.total);
    });
});
