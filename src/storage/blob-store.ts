import type { Readable } from 'node:stream';

/** An open write of one blob. */
export interface BlobWriter {
    /** Writes a chunk; resolves when the store has taken it (backpressure). */
    write(chunk: Buffer): Promise<void>;
    /** Makes the blob durable and visible. Resolves with the bytes written. */
    commit(): Promise<number>;
    /** Drops a partial blob. Never throws. */
    abort(): Promise<void>;
}

/** The blob key of an event's payload: offloaded bodies, kept originals and dataset body copies. */
export const payloadKey = (logId: string): string => `payload-${logId}`;

/** Large payloads, kept apart from the event rows. */
export interface BlobStore {
    /** Starts writing `key`. */
    create(key: string, contentType: string): Promise<BlobWriter>;
    /** Streams a blob. Throws NotFoundError when it does not exist. */
    read(key: string): Promise<{ stream: Readable; size: number }>;
    /** Deletes a blob; deleting one that does not exist is not an error. */
    delete(key: string): Promise<void>;
}

/** Writes `bytes` as blob `key` in one go; a failed write leaves no partial blob. */
export async function putBlob(blobs: BlobStore, key: string, contentType: string, bytes: Buffer): Promise<void> {
    const writer = await blobs.create(key, contentType);
    try {
        await writer.write(bytes);
        await writer.commit();
    } catch (error) {
        await writer.abort();
        throw error;
    }
}
