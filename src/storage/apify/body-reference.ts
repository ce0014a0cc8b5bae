import { payloadKey, putBlob, type BlobStore } from '../blob-store.js';
import type { BodyReader } from '../roles.js';
import type { LogEntry } from '../types.js';
import type { BodyReference } from './dataset-item.js';

const isOffloaded = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { offloaded?: unknown }).offloaded === true;

/**
 * The reference that replaces a body in the dataset. An inline body is first copied to the blob
 * store under the key an offloaded one would have (`payload-<id>`), so that the reference still
 * resolves when the read model is rebuilt from the dataset (dataset-restore.ts reads it back so).
 * A body that already has a blob (offloaded, or the sender's bytes kept when a customScript
 * rewrote the stored body) is not copied: that blob is what the payload route serves.
 */
export async function bodyReference(entry: LogEntry, bodies: BodyReader, blobs: BlobStore, baseUrl: string): Promise<BodyReference> {
    if (!isOffloaded(entry.body)) {
        const body = await bodies.getBody(entry.id);
        if (body.blobKey === undefined) await putBlob(blobs, payloadKey(entry.id), body.contentType, body.raw ?? Buffer.alloc(0));
    }
    return { truncated: true, size: entry.size, payloadUrl: `${baseUrl}/logs/${encodeURIComponent(entry.id)}/payload` };
}
