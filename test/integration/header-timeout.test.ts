import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

// Short bounds as in slow-senders.test.ts; production uses DEFAULT_TIMEOUTS.
const TIMEOUTS = { headersMs: 400, requestMs: 2500, bodyIdleMs: 400, checkIntervalMs: 100 };

/** Sends `bytes` and waits, reading everything until the server closes (or `waitMs` passes). */
function sendAndWait(port: number, bytes: string, waitMs = 5000): Promise<string> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
        const timer = setTimeout(() => socket.destroy(), waitMs);
        let out = '';
        socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
        socket.on('close', () => {
            clearTimeout(timer);
            resolve(out);
        });
        socket.on('error', reject);
    });
}

const bodyOf = (raw: string): { status: number; error: string; message: string } => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as never;

describe('answers to requests Node could not take', () => {
    let svc: TestService;
    let port: number;
    beforeAll(async () => {
        svc = await startTestService({ overrides: { timeouts: TIMEOUTS } });
        port = Number(new URL(svc.url).port);
    });
    afterAll(() => svc.close());

    it('a header timeout is a 408 saying the headers did not arrive in time, not a malformed request', async () => {
        const out = await sendAndWait(port, `POST /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nX-Partial: 1\r\n`);
        assert.match(out, /^HTTP\/1\.1 408 Request Timeout\r\n/);
        const body = bodyOf(out);
        assert.equal(body.status, 408);
        assert.equal(body.error, 'Request Timeout');
        assert.equal(body.message, 'Request headers not received in time');
    });

    it('a request whose headers came but whose body outlasts the whole-request bound is not called a header timeout', async () => {
        const socket = connect(port, '127.0.0.1');
        let out = '';
        socket.on('data', (c: Buffer) => (out += c.toString('latin1')));
        socket.on('error', () => undefined);
        const closed = new Promise<void>((r) => socket.once('close', () => r()));
        socket.write(`POST /webhook/${svc.webhookId} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
        const timer = setInterval(() => socket.writable && socket.write('x'), 100);
        await closed;
        clearInterval(timer);
        assert.match(out, /^HTTP\/1\.1 408 /);
        assert.equal(bodyOf(out).message, 'Request not received in time (the whole request took longer than allowed)');
    });

    it('unparseable HTTP is still a 400 "Malformed HTTP request"', async () => {
        const out = await sendAndWait(port, 'GARBAGE /x\r\n\r\n');
        assert.match(out, /^HTTP\/1\.1 400 Bad Request\r\n/);
        assert.match(bodyOf(out).message, /^Malformed HTTP request \(HPE_/);
    });
});
