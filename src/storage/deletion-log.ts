import type { KeyValueStore } from 'apify';

/**
 * The ids of deleted captures, kept where the read model is rebuilt from: on the platform a new
 * container restores from the (append-only) dataset, and without this list a capture deleted in an
 * earlier container would come back.
 */
export interface DeletionLog {
    /** Remembers deleted ids. */
    record(ids: readonly string[]): Promise<void>;
    /** Every id ever recorded. */
    load(): Promise<string[]>;
}

const PREFIX = 'deleted-';
/** Ids per record (~1.2 MB of JSON), well under the key-value store's record limit. */
const PER_RECORD = 50_000;
/** Records read at a start past which they are merged. */
const COMPACT_ABOVE = 10;

/** The deletion log as records `deleted-<time><random>` of a key-value store (the named one on the platform). */
export class KvDeletionLog implements DeletionLog {
    constructor(private readonly kvs: KeyValueStore) {}

    async record(ids: readonly string[]): Promise<void> {
        for (let i = 0; i < ids.length; i += PER_RECORD) {
            const key = `${PREFIX}${Date.now().toString(36).padStart(9, '0')}${Math.random().toString(36).slice(2, 8)}`;
            await this.kvs.setValue(key, ids.slice(i, i + PER_RECORD));
        }
    }

    /** Every id recorded; many small records (one per single delete) are merged into few on the way. */
    async load(): Promise<string[]> {
        const keys: string[] = [];
        await this.kvs.forEachKey((key) => void keys.push(key), { prefix: PREFIX });
        const ids: string[] = [];
        for (const key of keys) {
            const value = await this.kvs.getValue<unknown>(key);
            if (Array.isArray(value)) for (const id of value) if (typeof id === 'string') ids.push(id);
        }
        if (keys.length > COMPACT_ABOVE) {
            // Written before the old ones go, so a crash in between only leaves duplicates. Records
            // another run adds meanwhile have keys not listed here and stay.
            await this.record(ids);
            for (const key of keys) await this.kvs.setValue(key, null);
        }
        return ids;
    }
}
