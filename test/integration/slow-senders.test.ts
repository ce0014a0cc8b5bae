import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';

// Short bounds so the test runs in seconds; production uses DEFAULT_TIMEOUTS (20 s / 10 min / 30 s).
const TIMEOUTS = { headersMs: 400, requestMs: 2500, bodyIdleMs: 400, checkIntervalMs: 100 };
// How long a test waits for a close before calling the connection unbounded.
const GIVE_UP_MS = 8000;

/** A raw client: what it received, and when (if ever) the server closed it. */
interface RawClient {
    socket: Socket;
    received(): string;
    closed: Promise<boolean>;
}

function open(url: string): Promise<RawClient> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let data = '';
        socket.on('data', (c: Buffer) => (data += c.toString('latin1')));
        socket.on('error', () => undefined);
        const closed = new Promise<boolean>((done) => {
            const timer = setTimeout(() => done(false), GIVE_UP_MS);
            socket.once('close', () => {
                clearTimeout(timer);
                done(true);
            });
        });
        socket.once('connect', () => resolve({ socket, received: () => data, closed }));
        socket.once('error', reject);
    });
}

/** Writes `piece` every `everyMs` until the socket closes; returns a stopper. */
function trickle(socket: Socket, piece: string, everyMs: number): () => void {
    const timer = setInterval(() => {
        if (socket.destroyed || !socket.writable) return clearInterval(timer);
        socket.write(piece);
    }, everyMs);
    return () => clearInterval(timer);
}

const statusOf = (raw: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
const bodyOf = (raw: string): Record<string, unknown> => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;

describe('slow senders (slowloris) are cut within a bounded time', () => {
    let svc: TestService;
    let path: string;
    beforeAll(async () => {
        svc = await startTestService({ overrides: { timeouts: TIMEOUTS, offloadThreshold: 1024 } });
        path = `/webhook/${svc.webhookId}`;
    });
    afterAll(() => svc.close());

    const stored = async (): Promise<{ items: { statusCode: number; size: number; id: string; requestId: string }[]; total: number }> => json(await svc.fetch('/logs?limit=100'));

    it('closes a connection that trickles its headers, answering 408, and stores nothing', async () => {
        const before = (await stored()).total;
        const client = await open(svc.url);
        client.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\n`);
        // A header line every 100 ms: always something new, never the end of the headers.
        const stop = trickle(client.socket, 'X-Slow: 1\r\n', 100);
        const closed = await client.closed;
        stop();
        assert.ok(closed, 'the server closed the connection');
        assert.equal(statusOf(client.received()), 408);
        assert.equal((await stored()).total, before, 'nothing was captured');
    });

    it('closes a connection that never sends a byte', async () => {
        const client = await open(svc.url);
        assert.ok(await client.closed, 'the server closed the silent connection');
    });

    it('cuts a body that stalls: 408 with Connection: close, stored with its status and byte count', async () => {
        const client = await open(svc.url);
        client.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0123456789`);
        assert.ok(await client.closed, 'the server closed the connection');
        const raw = client.received();
        assert.equal(statusOf(raw), 408);
        assert.match(raw, /\r\nconnection: close\r\n/i);
        const body = bodyOf(raw);
        assert.equal(body.error, 'Request Timeout');
        assert.equal(body.received, 10, raw);
        const requestId = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(raw)?.[1];
        const item = (await stored()).items.find((i) => i.requestId === requestId);
        assert.ok(item, 'the cut request was stored');
        assert.equal(item.statusCode, 408);
        assert.equal(item.size, 10);
        const entry = await json<{ meta?: { rejected?: string }; body: unknown }>(await svc.fetch(`/logs/${item.id}?fields=meta,body`));
        assert.equal(entry.meta?.rejected, 'body timeout');
    });

    it('cuts a stalled body that was already streaming to the key-value store and leaves no payload behind', async () => {
        const client = await open(svc.url);
        client.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n${'a'.repeat(4000)}`);
        assert.ok(await client.closed);
        assert.equal(statusOf(client.received()), 408);
        assert.equal(bodyOf(client.received()).received, 4000);
        const requestId = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(client.received())?.[1];
        const item = (await stored()).items.find((i) => i.requestId === requestId);
        assert.equal(item?.statusCode, 408);
        const files = await readdir(join(svc.dir, 'key_value_stores', 'default')).catch(() => [] as string[]);
        assert.deepEqual(files.filter((f) => f.includes(item.id)), [], 'the partial blob was removed');
    });

    it('cuts a body that keeps trickling (never idle) once the whole-request bound passes, storing nothing', async () => {
        const before = (await stored()).total;
        const client = await open(svc.url);
        const started = Date.now();
        client.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`);
        const stop = trickle(client.socket, 'x', 100);
        const closed = await client.closed;
        stop();
        assert.ok(closed, 'the server closed the connection');
        assert.ok(Date.now() - started >= TIMEOUTS.requestMs - 200, 'not before the whole-request bound');
        const after = await stored();
        assert.equal(after.total, before, `an abandoned upload is not stored (README): ${JSON.stringify(after.items[0])} ${client.received()}`);
    });

    it('keeps an idle keep-alive connection past the header bound (its idle time is keepAliveTimeout\'s, 65 s)', async () => {
        const client = await open(svc.url);
        client.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\n\r\n`);
        await new Promise((r) => setTimeout(r, TIMEOUTS.headersMs * 3));
        assert.equal(statusOf(client.received()), 200);
        assert.equal(client.socket.destroyed, false, 'still open after three header bounds of idling');
        client.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        assert.ok(await client.closed);
        assert.equal(client.received().match(/HTTP\/1\.1 200/g)?.length, 2);
    });

    it('still takes an upload that pauses less than the idle bound, for longer than every bound but the whole-request one', async () => {
        const client = await open(svc.url);
        const piece = 'y'.repeat(100);
        client.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${piece.length * 12}\r\nConnection: close\r\n\r\n`);
        for (let i = 0; i < 12; i++) {
            await new Promise((r) => setTimeout(r, 100));
            client.socket.write(piece);
        }
        assert.ok(await client.closed);
        assert.equal(statusOf(client.received()), 200, client.received());
        const requestId = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(client.received())?.[1];
        const item = (await stored()).items.find((i) => i.requestId === requestId);
        assert.equal(item?.size, 1200);
    });
});
