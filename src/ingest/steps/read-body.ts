import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlobWriter } from '../../storage/blob-store.js';
import type { Step } from '../context.js';
import { openFormReaderOf } from './describe-form.js';
import { payloadKey } from '../../storage/blob-store.js';
import { BytePool } from '../../memory/byte-pool.js';
import { receive, tooLarge, type Reservation } from '../../memory/receive-body.js';

export { ClientAbortedError } from '../../memory/receive-body.js';

/** How long a refused upload is read and discarded before its 413 goes out. */
const LINGER_MS = 3_000;
/** How long a refused upload may keep sending after its 413 before the connection is cut. */
const DISCARD_GRACE_MS = 10_000;

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
 * request is stored with that status and the byte count, without the partial body. A form body's
 * reader (ctx.formReader) is fed each chunk as it arrives, in memory or on its way to the store.
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
            ctx.body = await receive(ctx.req, { max, threshold, blobKey, openBlob, idleMs, declared, memory, spill, ...(ctx.formReader ? { tap: ctx.formReader } : ctx.formLeft ? { spillTap: () => openFormReaderOf(ctx) } : {}) }, {
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
