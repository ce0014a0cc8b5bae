import { request } from 'node:http';

/** A raw answer: status, headers and body bytes. */
export interface RawResponse {
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
}

/** How rawRequest sends. */
export interface RawRequestOptions {
    method?: string;
    headers?: Record<string, string>;
    chunks?: Iterable<Buffer> | AsyncIterable<Buffer>;
    /** Source address of the connection, e.g. `127.0.0.2`: on Linux any 127/8 address is a distinct loopback client. */
    localAddress?: string;
}

/**
 * Sends a request with node:http so that the test controls framing: `chunks` are written one by
 * one (chunked transfer encoding unless a content-length header is given).
 */
export function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
    return new Promise<RawResponse>((resolve, reject) => {
        let answered = false;
        // A connection of its own: a test that sends less than it declares must not poison the next request.
        const req = request(url, { method: options.method ?? 'POST', headers: options.headers ?? {}, agent: false, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, (res) => {
            answered = true;
            const parts: Buffer[] = [];
            res.on('data', (c: Buffer) => parts.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
            res.on('error', reject);
        });
        // Once the answer has arrived, a failing write of the rest of the body (the server refused it
        // and closed) is expected, as curl shows it: the answer counts.
        req.on('error', (error) => {
            if (!answered) reject(error);
        });
        void (async () => {
            try {
                for await (const chunk of options.chunks ?? []) {
                    if (req.destroyed) return;
                    if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
                }
                req.end();
            } catch (error) {
                req.destroy(error as Error);
            }
        })();
    });
}
