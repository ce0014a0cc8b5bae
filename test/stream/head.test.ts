import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { openRawSse } from './sse-client.js';

let svc: TestService;

beforeAll(async () => {
    svc = await startTestService({ input: { rateLimitPerMinute: 0 }, live: { maxClients: 2 } });
});
afterAll(async () => {
    await svc?.close();
});

/** Sends raw bytes; resolves with everything received once the server closes (or after `waitMs`). */
function raw(bytes: string, waitMs = 3000): Promise<{ text: string; closed: boolean }> {
    return new Promise((resolve, reject) => {
        const socket = connect(Number(new URL(svc.url).port), '127.0.0.1', () => socket.write(bytes));
        let text = '';
        const timer = setTimeout(() => {
            socket.destroy();
            resolve({ text, closed: false });
        }, waitMs);
        socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
        socket.on('close', () => {
            clearTimeout(timer);
            resolve({ text, closed: true });
        });
        socket.on('error', reject);
    });
}

const liveClients = async (): Promise<number> => (await json<{ liveStream: { clients: number } }>(await svc.fetch('/system/metrics'))).liveStream.clients;

describe('HEAD /log-stream', () => {
    it('answers 200 with the headers GET sends, ends at once and registers no client', async () => {
        const get = await openRawSse(`${svc.url}/log-stream`);
        const getHeaders = get.res.headers;
        get.close();
        await expect.poll(liveClients).toBe(0);

        // A pipelined request after the HEAD is answered only if the HEAD answer ended.
        const out = await raw('HEAD /log-stream HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
        expect(out.closed).toBe(true);
        const [head, rest] = [out.text.slice(0, out.text.indexOf('\r\n\r\n')), out.text.slice(out.text.indexOf('\r\n\r\n') + 4)];
        expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        const headers = Object.fromEntries(head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        for (const name of ['content-type', 'cache-control', 'x-accel-buffering', 'connection']) expect(headers[name], name).toBe(getHeaders[name]);
        expect(headers['content-type']).toMatch(/^text\/event-stream/);
        // No body (no `: connected`), then the /health answer.
        expect(rest).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
        expect(svc.deps.live.size).toBe(0);
        expect(await liveClients()).toBe(0);
    });

    it('answers the 503 JSON headers of a full hub without taking a slot', async () => {
        const clients = [await openRawSse(`${svc.url}/log-stream`), await openRawSse(`${svc.url}/log-stream`)];
        try {
            expect(await liveClients()).toBe(2);
            const res = await svc.fetch('/log-stream', { method: 'HEAD' });
            expect(res.status).toBe(503);
            expect(res.headers.get('content-type')).toMatch(/^application\/json/);
            expect(await liveClients()).toBe(2);
            clients.pop()!.close();
            await expect.poll(liveClients).toBe(1);
            const ok = await svc.fetch('/log-stream', { method: 'HEAD' });
            expect(ok.status).toBe(200);
            expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/);
            expect(await liveClients()).toBe(1);
        } finally {
            clients.forEach((c) => c.close());
        }
    });
});
