import { createServer, type AddressInfo, type Socket } from 'node:net';

/** How a raw TCP peer on loopback treats each connection. */
export type PeerBehaviour =
    /** Accepts and reads, never writes a byte. */
    | 'silent'
    /** Answers the first bytes with `200 Connection Established` and keeps the socket open (a CONNECT tunnel). */
    | 'tunnel'
    /** Sends `100 Continue` again and again, never a final answer. */
    | 'continue'
    /** Sends the status line and headers one byte at a time, every `everyMs`. */
    | 'drip-head'
    /** Sends whole headers (Content-Length 10,000), then the body one byte at a time, every `everyMs`. */
    | 'drip-body'
    /** Accepts and never reads (a stalled upload fills the socket buffers). */
    | 'no-read';

/** A peer and what it saw. */
export interface BadPeer {
    url: string;
    port: number;
    /** Connections accepted. */
    accepted: number;
    /** Connections that are closed now (by either side). */
    closed: number;
    /** Bytes of requests received, across connections. */
    received: number;
    close(): Promise<void>;
}

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10000\r\n\r\n';

/** Starts a peer on 127.0.0.1:0 that misbehaves as `behaviour` says; bytes drip every `everyMs`. */
export async function startBadPeer(behaviour: PeerBehaviour, everyMs = 100): Promise<BadPeer> {
    const sockets = new Set<Socket>();
    const timers = new Set<NodeJS.Timeout>();
    const peer: BadPeer = { url: '', port: 0, accepted: 0, closed: 0, received: 0, close: async () => undefined };
    const drip = (socket: Socket, bytes: string): void => {
        let i = 0;
        const timer = setInterval(() => {
            if (i < bytes.length) socket.write(bytes[i++]!);
        }, everyMs);
        timers.add(timer);
        socket.once('close', () => clearInterval(timer));
    };
    const keepContinuing = (socket: Socket): void => {
        socket.write('HTTP/1.1 100 Continue\r\n\r\n');
        const timer = setInterval(() => socket.write('HTTP/1.1 100 Continue\r\n\r\n'), everyMs);
        timers.add(timer);
        socket.once('close', () => clearInterval(timer));
    };
    const server = createServer((socket) => {
        peer.accepted++;
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.once('close', () => {
            peer.closed++;
            sockets.delete(socket);
        });
        if (behaviour === 'no-read') {
            socket.pause();
            return;
        }
        socket.on('data', (chunk: Buffer) => (peer.received += chunk.length));
        socket.once('data', () => {
            if (behaviour === 'tunnel') socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
            else if (behaviour === 'continue') keepContinuing(socket);
            else if (behaviour === 'drip-head') drip(socket, HEAD);
            else if (behaviour === 'drip-body') {
                socket.write(HEAD);
                drip(socket, 'b'.repeat(10_000));
            }
        });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    peer.port = (server.address() as AddressInfo).port;
    peer.url = `http://127.0.0.1:${peer.port}`;
    peer.close = () =>
        new Promise<void>((r) => {
            for (const t of timers) clearInterval(t);
            for (const s of sockets) s.destroy();
            server.close(() => r());
        });
    return peer;
}
