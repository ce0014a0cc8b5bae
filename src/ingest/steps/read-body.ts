import type { IncomingMessage } from 'node:http';
import { AppError } from '../../errors.js';
import type { BlobWriter } from '../../storage/blob-store.js';
import type { ReceivedBody, Step } from '../context.js';

/** The sender went away before the body was complete; there is nobody to answer. */
export class ClientAbortedError extends Error {
    constructor() {
        super('client aborted the request body');
        this.name = 'ClientAbortedError';
    }
}

const tooLarge = (max: number, received: number): AppError =>
    new AppError(413, `Payload exceeds the maximum of ${max} bytes`, { limit: max, received }, { Connection: 'close' });

/**
 * Step 5: reads the body while counting it. Above `max` it stops at once with 413 (a declared
 * Content-Length is refused before reading); above `threshold` it streams to the blob store
 * with backpressure, so a large upload is never held whole in memory.
 */
export function createReadBody(max: number, threshold: number): Step {
    return async (ctx) => {
        ctx.capturing = true;
        const declared = Number(ctx.req.headers['content-length']);
        if (declared > max) {
            ctx.meta.rejected = 'payload too large';
            ctx.body = { kind: 'empty', size: declared };
            throw tooLarge(max, declared);
        }
        const blobKey = `payload-${ctx.logId}`;
        const openBlob = (): Promise<BlobWriter> => ctx.deps.blobs.create(blobKey, String(ctx.req.headers['content-type'] ?? ''));
        ctx.body = await receive(ctx.req, { max, threshold, blobKey, openBlob }, (size) => {
            ctx.meta.rejected = 'payload too large';
            ctx.body = { kind: 'empty', size };
        });
    };
}

interface ReceiveOptions {
    max: number;
    threshold: number;
    blobKey: string;
    openBlob: () => Promise<BlobWriter>;
}

function receive(req: IncomingMessage, { max, threshold, blobKey, openBlob }: ReceiveOptions, onTooLarge: (size: number) => void): Promise<ReceivedBody> {
    return new Promise<ReceivedBody>((resolve, reject) => {
        let chunks: Buffer[] = [];
        let size = 0;
        let writer: Promise<BlobWriter> | undefined;
        let writing: Promise<unknown> = Promise.resolve();
        let done = false;

        const finish = (error: Error | undefined, body?: ReceivedBody): void => {
            if (done) return;
            done = true;
            req.off('data', onData).off('end', onEnd).off('error', onAbort).off('aborted', onAbort).off('close', onClose);
            if (error) {
                if (writer) void writing.then(() => writer!.then((w) => w.abort())).catch(() => undefined);
                reject(error);
            } else resolve(body!);
        };
        const spill = (chunk: Buffer): void => {
            // One chunk in flight at a time: the socket waits while the disk catches up.
            req.pause();
            writing = writing.then(() => writer!.then((w) => w.write(chunk))).then(
                () => !done && req.resume(),
                (error: Error) => finish(error),
            );
        };
        function onData(chunk: Buffer): void {
            size += chunk.length;
            if (size > max) {
                onTooLarge(size);
                finish(tooLarge(max, size));
                return;
            }
            if (writer) return spill(chunk);
            chunks.push(chunk);
            if (size > threshold) {
                writer = openBlob();
                const buffered = chunks;
                chunks = [];
                for (const c of buffered) spill(c);
            }
        }
        function onEnd(): void {
            if (!writer) {
                const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
                finish(undefined, { kind: size === 0 ? 'empty' : 'text', size, raw });
                return;
            }
            const blob = writer;
            writing
                .then(() => blob)
                .then((w) => w.commit())
                .then(
                    () => finish(undefined, { kind: 'offloaded', size, blobKey }),
                    (error: Error) => finish(error),
                );
        }
        function onAbort(): void {
            finish(new ClientAbortedError());
        }
        function onClose(): void {
            if (!req.complete) onAbort();
        }
        req.on('data', onData).on('end', onEnd).on('error', onAbort).on('aborted', onAbort).on('close', onClose);
    });
}
