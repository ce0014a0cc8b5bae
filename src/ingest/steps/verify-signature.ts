import { verifySignature, type BodySource, type SignatureSettings } from '../../signatures/index.js';
import type { IngestContext, Step } from '../context.js';

const EMPTY = Buffer.alloc(0);

/** The body bytes exactly as received: in memory, or streamed back from the blob store. */
function receivedBytes(ctx: IngestContext): BodySource {
    const { blobKey } = ctx.body;
    if (ctx.body.kind === 'offloaded' && blobKey) return { open: async () => (await ctx.deps.blobs.read(blobKey)).stream };
    return { raw: ctx.body.raw ?? EMPTY };
}

/**
 * Step 8: checks the provider signature over the raw bytes and records the outcome on the event.
 * The answer never depends on it.
 */
export function createVerifySignature(settings: SignatureSettings | undefined): Step {
    if (!settings) return () => undefined;
    return async (ctx) => {
        ctx.signature = await verifySignature(settings, ctx.req.headersDistinct, receivedBytes(ctx), ctx.deps.clock.now());
    };
}
