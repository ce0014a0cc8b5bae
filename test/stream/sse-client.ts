import { request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/** One SSE frame as parsed off the wire: its field lines, in order. */
export interface Frame {
    /** `[field, value]` pairs; a comment line has field ''. */
    lines: [string, string][];
}

/** A raw SSE connection that parses frames itself (no client library in between). */
export interface RawSse {
    res: IncomingMessage;
    /** Every complete frame so far. */
    frames: Frame[];
    /** The bytes exactly as received. */
    raw: string;
    /** Data frames: their id and parsed data. */
    events(): { id: string | undefined; data: Record<string, unknown> }[];
    /** Comment texts, in order. */
    comments(): string[];
    /** Waits until `check` holds over the frames received. */
    until(check: (s: RawSse) => boolean, timeoutMs?: number): Promise<void>;
    close(): void;
}

/** A client that sends `GET /log-stream` to the service at `url` and then never reads a byte (a stalled reader). */
export async function openStalledSse(url: string): Promise<Socket> {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    await new Promise<void>((r) => socket.once('connect', () => r()));
    // A loopback Host: without a key, management answers only under this machine's own names.
    socket.write('GET /log-stream HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n');
    socket.pause();
    return socket;
}

/** Opens GET `url` and parses the stream; rejects with the status and body if the answer is not 200. */
export function openRawSse(url: string, headers: Record<string, string> = {}): Promise<RawSse> {
    return new Promise((resolve, reject) => {
        const req = request(url, { headers: { Accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
            if (res.statusCode !== 200) {
                let body = '';
                res.on('data', (c: Buffer) => (body += c.toString()));
                res.on('end', () => reject(Object.assign(new Error(`status ${res.statusCode}`), { status: res.statusCode, body, headers: res.headers })));
                return;
            }
            let buffer = '';
            const sse: RawSse = {
                res,
                frames: [],
                raw: '',
                events: () =>
                    sse.frames
                        .filter((f) => f.lines.some(([k]) => k === 'data'))
                        .map((f) => ({ id: f.lines.find(([k]) => k === 'id')?.[1], data: JSON.parse(f.lines.filter(([k]) => k === 'data').map(([, v]) => v).join('\n')) as Record<string, unknown> })),
                comments: () => sse.frames.flatMap((f) => f.lines.filter(([k]) => k === '').map(([, v]) => v)),
                until: async (check, timeoutMs = 10_000) => {
                    const deadline = Date.now() + timeoutMs;
                    while (!check(sse)) {
                        if (Date.now() > deadline || res.destroyed) throw new Error(`SSE condition not met; got ${sse.frames.length} frames`);
                        await new Promise((r) => setTimeout(r, 10));
                    }
                },
                close: () => {
                    req.destroy();
                    res.destroy();
                },
            };
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
                sse.raw += chunk;
                buffer += chunk;
                let end: number;
                while ((end = buffer.indexOf('\n\n')) !== -1) {
                    const block = buffer.slice(0, end);
                    buffer = buffer.slice(end + 2);
                    sse.frames.push({
                        lines: block.split('\n').map((line): [string, string] => {
                            const colon = line.indexOf(':');
                            if (colon === -1) return [line, ''];
                            return [line.slice(0, colon), line.slice(colon + 1).replace(/^ /, '')];
                        }),
                    });
                }
            });
            res.on('error', () => undefined);
            resolve(sse);
        });
        req.on('error', reject);
        req.end();
    });
}
