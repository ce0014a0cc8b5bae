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

/** Large payloads, kept apart from the event rows. */
export interface BlobStore {
    /** Starts writing `key`. */
    create(key: string, contentType: string): Promise<BlobWriter>;
    /** Streams a blob. Throws NotFoundError when it does not exist. */
    read(key: string): Promise<{ stream: Readable; size: number }>;
}
