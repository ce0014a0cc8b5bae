import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a receiver saw it. */
export interface Received {
    method: string;
    url: string;
    headers: IncomingHttpHeaders;
    /** Header names as sent on the wire, in order. */
    rawNames: string[];
    body: Buffer;
    /** When the whole request had arrived (performance.now()). */
    at: number;
}

/** A real HTTP server on 127.0.0.1:0 that records every request and answers with `reply`. */
export interface Receiver {
    url: string;
    port: number;
    requests: Received[];
    /** Resolves once `n` requests have arrived. */
    waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
    close(): Promise<void>;
}

type Reply = (req: Received, res: ServerResponse) => void;

/** Starts a receiver; by default it answers 200 `ok`. A reply that never ends the response simulates a hung target. */
export async function startReceiver(reply: Reply = (_r, res) => res.end('ok')): Promise<Receiver> {
    const requests: Received[] = [];
    const waiters: (() => void)[] = [];
    const server = createServer((req: IncomingMessage, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
            const rawNames = req.rawHeaders.filter((_, i) => i % 2 === 0);
            const got: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawNames, body: Buffer.concat(chunks), at: performance.now() };
            requests.push(got);
            waiters.splice(0).forEach((w) => w());
            reply(got, res);
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    return {
        url: `http://127.0.0.1:${port}`,
        port,
        requests,
        async waitFor(n, timeoutMs = 10_000) {
            const deadline = Date.now() + timeoutMs;
            while (requests.length < n) {
                if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${n} requests`);
                await new Promise<void>((r) => {
                    waiters.push(r);
                    setTimeout(r, 50);
                });
            }
            return requests;
        },
        close: () =>
            new Promise<void>((r) => {
                server.closeAllConnections();
                server.close(() => r());
            }),
    };
}

/** A receiver that holds the answers to the requests `holds` picks (a hung target) until `release`. */
export interface HoldingReceiver extends Receiver {
    /** Answers every held request with `reply`, as every later request is answered. */
    release(): void;
}

/**
 * Starts a receiver that holds answers until released; a held request is answered by `reply` once
 * released, and `close` releases first. By default every request is held and answered 200 `ok`.
 */
export async function startHoldingReceiver(reply: Reply = (_r, res) => res.end('ok'), holds: (req: Received) => boolean = () => true): Promise<HoldingReceiver> {
    let holding = true;
    const held: [Received, ServerResponse][] = [];
    const receiver = await startReceiver((req, res) => (holding && holds(req) ? held.push([req, res]) : reply(req, res)));
    const release = (): void => {
        holding = false;
        for (const [req, res] of held.splice(0)) reply(req, res);
    };
    return {
        ...receiver,
        release,
        close: async () => {
            release();
            await receiver.close();
        },
    };
}

/**
 * For a receiver that holds every answer in `held`: checks that exactly `cap` requests arrive while
 * none is answered (none more within 300 ms), then answers them and waits for all `total`, answering
 * those too.
 */
export async function expectCapWhileHeld(target: Receiver, held: ServerResponse[], cap: number, total: number): Promise<void> {
    await target.waitFor(cap);
    await new Promise((r) => setTimeout(r, 300));
    if (target.requests.length !== cap) throw new Error(`expected ${cap} requests while answers were held, got ${target.requests.length}`);
    for (const res of held.splice(0)) res.end('ok');
    await target.waitFor(total);
    for (const res of held.splice(0)) res.end('ok');
}
