import type { BodyKind, LogEntry } from './types.js';

// An entry read back shows a JSON body parsed: the text the store keeps (duplicate names, number
// spellings, escapes, whitespace) is gone from it, and that text is what a /logs body filter reads.
// The live stream's filters read it here, for entries the store built (storage/rows.ts rowToEntry).

const texts = new WeakMap<LogEntry, string | null>();
// Entries whose payload route serves a blob (the bytes as received), not the stored body: a body a
// custom script replaced keeps its original there.
const withBlob = new WeakSet<LogEntry>();

/**
 * Records the stored body text of an entry built from a row: null when it has none, nothing when it
 * was not read; and whether a blob holds its payload (`blobKey`).
 */
export function keepBodyText(entry: LogEntry, kind: BodyKind, body: { text: string | null } | undefined, blobKey?: string | null): void {
    if (kind !== 'json' && kind !== 'text') texts.set(entry, null);
    else if (body) texts.set(entry, body.text);
    if (blobKey) withBlob.add(entry);
}

/** Whether GET /logs/:id/payload serves a blob for an entry the store read back (so its stored text is not the payload). */
export const servesBlob = (entry: LogEntry): boolean => withBlob.has(entry);

/**
 * The body text exactly as stored, for an entry the store read back: null when the event has none
 * (empty, binary, offloaded); undefined when the read left the body out (over its bodyLimit) or the
 * entry was not read from the store.
 */
export function storedBodyText(entry: LogEntry): string | null | undefined {
    return texts.get(entry);
}
