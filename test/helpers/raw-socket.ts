import { connect } from 'node:net';

/** One HTTP answer read off a raw socket. */
export interface RawAnswer {
    /** The status line's code, 0 when nothing came back. */
    status: number;
    /** Header names lower-cased; a repeated one keeps its last value. */
    headers: Record<string, string>;
    body: string;
    /** Everything the server wrote, as latin1 text. */
    text: string;
}

/** Writes raw bytes, then collects everything until the server closes (or `waitMs` passes). */
export function rawExchange(port: number, bytes: string | Buffer, waitMs = 3000): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
        setTimeout(() => socket.destroy(), waitMs).unref();
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
        socket.on('close', () => resolve(parseAnswer(text)));
        // The server may close while the test still writes a refused request: what came back counts.
        socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    });
}

/** Splits the first answer of a raw exchange into status, headers and body (Content-Length framed). */
export function parseAnswer(text: string): RawAnswer {
    const end = text.indexOf('\r\n\r\n');
    if (!text.startsWith('HTTP/') || end < 0) return { status: 0, headers: {}, body: '', text };
    const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const rest = text.slice(end + 4);
    const length = Number(headers['content-length']);
    return { status: Number(statusLine!.split(' ')[1]), headers, body: Number.isFinite(length) ? rest.slice(0, length) : rest, text };
}
