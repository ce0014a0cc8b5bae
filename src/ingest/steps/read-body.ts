import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../../errors.js';
import type { BlobWriter } from '../../storage/blob-store.js';
import type { ReceivedBody, Step } from '../context.js';
import { payloadKey } from '../../storage/blob-store.js';
import { BytePool } from '../../memory/byte-pool.js';

/** The sender went away before the body was complete; there is nobody to answer. */
export class ClientAbortedError extends Error {
    constructor() {
        super('client aborted the request body');
        this.name = 'ClientAbortedError';
    }
}

/** How long a refused upload is read and discarded before its 413 goes out. */
const LINGER_MS = 3_000;
/** How long a refused upload may keep sending after its 413 before the connection is cut. */
const DISCARD_GRACE_MS = 10_000;

const tooLarge = (max: number, received: number): AppError =>
    new AppError(413, `Payload exceeds the maximum of ${max} bytes`, { limit: max, received });

/** How long a sender should wait before trying again after the payload store refused a write. */
const RETRY_AFTER_S = '30';

/** The payload store could not take the body (disk full, store unreachable): nothing is kept, the sender retries. */
const notStored = (received: number): AppError =>
    new AppError(503, 'The payload could not be stored; retry the delivery', { received }, { 'Retry-After': RETRY_AFTER_S });

/** No room in the bodies' memory share and the body may not go to disk (a schema or script needs it whole). */
const busy = (received: number): AppError =>
    new AppError(503, 'Too many large bodies are being received at once; retry the delivery', { received }, { 'Retry-After': '5' });

const stalled = (idleMs: number, received: number): AppError =>
    new AppError(408, `Request body timed out: no data for ${idleMs / 1000} s`, { received }, { Connection: 'close' });

/**
 * After a 413 the rest of the body is read and discarded (Node drains it to keep the connection),
 * so the sender reads its answer instead of a reset. A sender still going after the grace period
 * loses the connection.
 */
function discardRest(req: IncomingMessage, res: ServerResponse): void {
    req.resume();
    if (req.complete) return;
    res.once('finish', () => {
        if (req.complete) return;
        const timer = setTimeout(() => req.socket.destroy(), DISCARD_GRACE_MS);
        timer.unref();
        req.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
    });
}

/**
 * Waits (discarding) until the refused body has fully arrived, or LINGER_MS: answering while the
 * sender still writes lets a closing connection reset, and the sender would never see its 413.
 */
function linger(req: IncomingMessage): Promise<void> {
    return new Promise((resolve) => {
        if (req.complete || req.destroyed) return resolve();
        const done = (): void => {
            clearTimeout(timer);
            resolve();
        };
        const timer = setTimeout(done, LINGER_MS);
        req.once('end', done).once('close', done);
    });
}

/**
 * Step 5: reads the body while counting it. Above `max` it stops at once with 413 (a declared
 * Content-Length is refused before reading). A body is held in memory only while its bytes fit in
 * `pool`, the request bodies' share of the memory budget (taken whole up front when the length is
 * declared, chunk by chunk when it is not); above `threshold`, or once the pool has no room, it
 * streams to the blob store with backpressure, so memory never grows with the number of senders.
 * The pool's bytes are given back when the answer is out. When the blob store cannot take the
 * body (disk full) the sender gets 503 with Retry-After and no partial blob is left. With `spill`
 * off (a JSON Schema or a script must see the whole body, which an offloaded body skips) a body the
 * pool has no room for is refused with 503 and Retry-After instead, so load never changes the verdict.
 * A sender that pauses for `idleMs` (slowloris) is answered 408 and the connection closed; the
 * request is stored with that status and the byte count, without the partial body.
 */
export function createReadBody(max: number, threshold: number, idleMs = 0, pool = new BytePool(Number.MAX_SAFE_INTEGER), spill = true): Step {
    return async (ctx) => {
        ctx.capturing = true;
        const declared = Number(ctx.req.headers['content-length']);
        if (declared > max) {
            ctx.meta.rejected = 'payload too large';
            ctx.body = { kind: 'empty', size: declared };
            discardRest(ctx.req, ctx.res);
            await linger(ctx.req);
            throw tooLarge(max, declared);
        }
        const blobKey = payloadKey(ctx.logId);
        const openBlob = (): Promise<BlobWriter> => ctx.deps.blobs.create(blobKey, String(ctx.req.headers['content-type'] ?? ''));
        let held = 0;
        const memory: Reservation = {
            take: (bytes) => {
                if (!pool.tryTake(bytes)) return false;
                held += bytes;
                return true;
            },
            giveBack: () => {
                pool.give(held);
                held = 0;
            },
        };
        // Whatever happens next, the bytes go back once this request is over.
        ctx.res.once('close', memory.giveBack);
        const refuse = (reason: string) => (size: number): void => {
            ctx.meta.rejected = reason;
            ctx.body = { kind: 'empty', size };
            discardRest(ctx.req, ctx.res);
        };
        try {
            ctx.body = await receive(ctx.req, { max, threshold, blobKey, openBlob, idleMs, declared, memory, spill }, {
                tooLarge: refuse('payload too large'),
                notStored: refuse('payload not stored'),
                busy: refuse('memory busy'),
                stalled: (size) => {
                    ctx.meta.rejected = 'body timeout';
                    ctx.body = { kind: 'empty', size };
                    // The rest is never read: the connection goes once the 408 is out (or now, if it never is).
                    ctx.res.once('finish', () => ctx.req.socket.destroy()).once('close', () => ctx.req.socket.destroy());
                },
            });
            if (ctx.body.kind === 'offloaded' && ctx.body.size <= threshold) ctx.meta.offloaded = 'memory budget';
        } catch (error) {
            memory.giveBack();
            // A refused upload is drained for a while so its sender reads the answer; a stalled one is not.
            if (ctx.meta.rejected !== undefined && ctx.meta.rejected !== 'body timeout') await linger(ctx.req);
            throw error;
        }
    };
}

/** The bytes one request holds of the body pool. */
interface Reservation {
    /** Takes more; false when the pool has no room. */
    take(bytes: number): boolean;
    /** Gives back everything taken so far. */
    giveBack(): void;
}

interface ReceiveOptions {
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
}

/** What receive reports before it rejects, so the step can record the reason. */
interface ReceiveEvents {
    tooLarge(size: number): void;
    notStored(size: number): void;
    busy(size: number): void;
    stalled(size: number): void;
}

function receive(req: IncomingMessage, options: ReceiveOptions, on: ReceiveEvents): Promise<ReceivedBody> {
    const { max, threshold, blobKey, openBlob, idleMs, declared, memory, spill: mayShed } = options;
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
        if ((sized && !known) || (roomless && mayShed)) writer = openBlob();

        const finish = (error: Error | undefined, body?: ReceivedBody): void => {
            if (done) return;
            done = true;
            clearTimeout(idle);
            req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
            if (error) {
                if (writer) void writing.then(() => writer!.then((w) => w.abort())).catch(() => undefined);
                reject(error);
            } else resolve(body!);
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
            writing = writing.then(() => writer!.then((w) => w.write(chunk))).then(
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
