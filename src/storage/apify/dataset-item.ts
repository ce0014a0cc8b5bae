import type { LogEntry } from '../types.js';

/**
 * The largest item we push. The SDK refuses an item whose JSON is over 9 MiB (9,437,184 bytes less
 * a 0.01% margin); we stay a little under, so a reduced item never meets that check at all.
 */
export const DATASET_ITEM_MAX_BYTES = 9_000_000;

/** Summary fields kept by the last-resort item (see minimalItem). */
const MINIMAL_FIELDS = ['id', 'webhookId', 'timestamp', 'method', 'statusCode', 'size', 'processingTime', 'requestId', 'requestUrl', 'contentType', 'remoteIp', 'userAgent'] as const;

/**
 * The dataset item of an event: the entry as GET /logs/:logId returns it. When a JSON body's bytes
 * differ from its compact form (pretty-printed, say), `bodyText` keeps them, so a restore is exact.
 */
export function datasetItem(entry: LogEntry, rawText: string | undefined): Record<string, unknown> {
    const item: Record<string, unknown> = { ...entry };
    if (rawText !== undefined && typeof entry.body === 'object' && entry.body !== null && JSON.stringify(entry.body) !== rawText) item.bodyText = rawText;
    return item;
}

/** The reference that stands in for a body the dataset cannot take (DECISIONS.md). */
export interface BodyReference {
    truncated: true;
    size: number;
    payloadUrl: string;
}

/** Whether an item serializes within the dataset's item limit. */
export function fitsDataset(item: Record<string, unknown>): boolean {
    try {
        const json = JSON.stringify(item);
        // A UTF-8 byte is at most 3 per UTF-16 unit: skip the exact count when it cannot matter.
        return json.length * 3 <= DATASET_ITEM_MAX_BYTES || Buffer.byteLength(json) <= DATASET_ITEM_MAX_BYTES;
    } catch {
        // Too deep to serialize (RangeError), or otherwise unserializable: the dataset cannot take it.
        return false;
    }
}

/** The item with its body replaced by a reference. */
export function reducedItem(item: Record<string, unknown>, ref: BodyReference): Record<string, unknown> {
    const { bodyText: _text, bodyEncoding: _encoding, ...rest } = item;
    return { ...rest, body: ref };
}

/** The last resort, when even the reduced item does not fit (a huge or unserializable envelope). */
export function minimalItem(item: Record<string, unknown>, ref: BodyReference, reason: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of MINIMAL_FIELDS) if (typeof item[field] === 'string' || typeof item[field] === 'number') out[field] = item[field];
    out.body = ref;
    out.exportError = reason;
    return out;
}
