import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';
import type { BlobWriter } from '../storage/blob-store.js';
import type { BodyKind } from '../storage/types.js';

// How an ingest body is received within the memory budget (the step around it: ingest/steps/read-body.ts).

/** The body as read off the wire. */
export interface ReceivedBody {
    kind: BodyKind;
    size: number;
    /** The bytes, unless offloaded. */
    raw?: Buffer;
    blobKey?: string;
}

/** The sender went away before the body was complete; there is nobody to answer. */
export class ClientAbortedError extends Error {
    constructor() {
        super('client aborted the request body');
        this.name = 'ClientAbortedError';
    }
}

/** The body passed `max`. */
export const tooLarge = (max: number, received: number): AppError =>
    new AppError(413, `Payload exceeds the maximum of ${max} bytes`, { limit: max, received });

/** How long a sender should wait before trying again after the payload store refused a write. */
const RETRY_AFTER_S = '30';

/** The payload store could not take the body (disk full, store unreachable): nothing is kept, the sender retries. */
const notStored = (received: number): AppError =>
    new AppError(503, 'The payload could not be stored; retry the delivery', { received }, { 'Retry-After': RETRY_AFTER_S });

/** No room in the bodies' memory share and the body may not go to disk (a schema or script needs it whole). */
const busy = (received: number): AppError =>
    new AppError(503, 'Too many large bodies are being received at once; retry the delivery', { received }, { 'Retry-After': '5' });

/** The sender paused longer than `idleMs`. */
const stalled = (idleMs: number, received: number): AppError =>
    new AppError(408, `Request body timed out: no data for ${idleMs / 1000} s`, { received }, { Connection: 'close' });

/** The bytes one request holds of the body pool. */
export interface Reservation {
    /** Takes more; false when the pool has no room. */
    take(bytes: number): boolean;
    /** Gives back everything taken so far. */
    giveBack(): void;
}

/** What a body is received with. */
export interface ReceiveOptions {
    max: number;
    threshold: number;
    blobKey: string;
    openBlob: () => Promise<BlobWriter>;
    /** The longest pause between two chunks; 0 for none. */
    idleMs: number;
    /** The declared Content-Length (NaN when chunked). */
    declared: number;
    memory: Reservation;
    /** Whether a body the pool has no room for may go to the blob store (else it is refused). */
    spill: boolean;
    /** Sees every chunk as it arrives, synchronously (a form's reader): it holds no chunk, so backpressure and memory stay as they are. */
    tap?: { push(chunk: Buffer): void };
    /** Made only if the body goes to the blob store, and then fed every chunk from the first, as `tap` is (a body kept in memory is read later, whole). */
    spillTap?: () => { push(chunk: Buffer): void };
}

/** What receive reports before it rejects, so the step can record the reason. */
export interface ReceiveEvents {
    tooLarge(size: number): void;
    notStored(size: number): void;
    busy(size: number): void;
    stalled(size: number): void;
}

/**
 * Reads a request body: in memory while `memory` has room (and below `threshold`), else streamed to
 * the blob store one chunk at a time with the socket paused while the disk catches up. Rejects with
 * the AppError the sender is to get (413, 408, 503) after telling `on`, or ClientAbortedError.
 */
export function receive(req: IncomingMessage, options: ReceiveOptions, on: ReceiveEvents): Promise<ReceivedBody> {
    const { max, threshold, blobKey, openBlob, idleMs, declared, memory, spill: mayShed, spillTap } = options;
    let tap = options.tap;
    return new Promise<ReceivedBody>((resolve, reject) => {
        let chunks: Buffer[] = [];
        let size = 0;
        let writer: Promise<BlobWriter> | undefined;
        let writing: Promise<unknown> = Promise.resolve();
        let done = false;
        // Paused by us while the disk catches up: that pause is not the sender's.
        let spilling = 0;
        const idle = idleMs > 0 ? setTimeout(onIdle, idleMs) : undefined;
        // A declared length that fits goes to memory (taken whole now) or straight to disk; otherwise chunk by chunk.
        const sized = Number.isInteger(declared) && declared > 0;
        const known = sized && declared <= threshold;
        const roomless = known && !memory.take(declared);
        // Bound for the blob store anyway (above the threshold), or with no room in memory: straight to disk.
        // A spill tap, made when the body starts to go to the blob store, first sees what was held back.
        const startTap = (held: readonly Buffer[]): void => {
            if (tap || !spillTap) return;
            tap = spillTap();
            for (const c of held) tap.push(c);
        };
        if ((sized && !known) || (roomless && mayShed)) {
            writer = openBlob();
            startTap([]);
        }

        const finish = (error: Error | undefined, body?: ReceivedBody): void => {
            if (done) return;
            done = true;
            clearTimeout(idle);
            req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
            if (!error) return resolve(body!);
            if (!writer) return reject(error);
            // The partial blob is gone before the answer goes out: a 503 says nothing was kept, and
            // a disk that was full has its space back when the sender retries.
            const blob = writer;
            void writing
                .then(() => blob)
                .then((w) => w.abort())
                .catch(() => undefined)
                .then(() => reject(error));
        };
        const storeFailed = (error: unknown): void => {
            if (done) return;
            if (error instanceof AppError) return finish(error);
            on.notStored(size);
            finish(notStored(size));
        };
        const spill = (chunk: Buffer): void => {
            // One chunk in flight at a time: the socket waits while the disk catches up.
            req.pause();
            spilling++;
            // Once finished (refused, failed, aborted), chunks still queued are not written.
            writing = writing.then(() => (done ? undefined : writer!.then((w) => w.write(chunk)))).then(
                () => {
                    spilling--;
                    idle?.refresh();
                    if (!done) req.resume();
                },
                storeFailed,
            );
        };
        const startSpill = (): void => {
            writer = openBlob();
            const buffered = chunks;
            chunks = [];
            // A tap made now has seen none of the chunks so far (the last one included).
            startTap(buffered);
            for (const c of buffered) spill(c);
            // The buffered chunks are on their way to disk; the pool's bytes are free for other bodies.
            memory.giveBack();
        };
        function onIdle(): void {
            if (spilling > 0) return void idle!.refresh();
            on.stalled(size);
            finish(stalled(idleMs, size));
        }
        function onData(chunk: Buffer): void {
            idle?.refresh();
            size += chunk.length;
            if (size > max) {
                on.tooLarge(size);
                finish(tooLarge(max, size));
                return;
            }
            tap?.push(chunk);
            if (writer) return spill(chunk);
            if (roomless || (!known && size <= threshold && !memory.take(chunk.length))) {
                if (!mayShed) {
                    on.busy(size);
                    return finish(busy(size));
                }
                chunks.push(chunk);
                return startSpill();
            }
            chunks.push(chunk);
            if (size > threshold) startSpill();
        }
        function onEnd(): void {
            clearTimeout(idle);
            if (!writer) {
                const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
                finish(undefined, { kind: size === 0 ? 'empty' : 'text', size, raw });
                return;
            }
            const blob = writer;
            writing
                .then(() => blob)
                .then((w) => w.commit())
                .then(() => finish(undefined, { kind: 'offloaded', size, blobKey }), storeFailed);
        }
        function onAbort(): void {
            finish(new ClientAbortedError());
        }
        function onClose(): void {
            if (!req.complete) onAbort();
        }
        // An abort shows as 'close' before the body completed (and as 'error' when one is emitted).
        req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
        if (writer) writer.catch(storeFailed);
    });
}
