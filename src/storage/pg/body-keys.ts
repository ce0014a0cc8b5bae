import { scanJsonText } from '../../lib/json-text.js';
import type { BodyKind } from '../types.js';
import { Unkeyed } from './key-hash.js';
import { MAX_BYTES, Reader } from './key-reader.js';

export { keyOf, stepText } from './key-hash.js';
export { integerText, numberForms, valueForms } from './key-forms.js';

// The keys of a body: every (path, value) a keyed filter `body[path]=value` can match, written at
// ingest into events.body_keys, which a GIN index serves (query/keyed.ts). They follow the rules of
// the JSON walk (query/keyed-functions.ts), which reproduces SQLite's json_each:
// - an object member is reached by its name, the FIRST member of that name only;
// - an array element by its index, and an array also matches where any element does: every
//   element's forms are keys at the array's own path too;
// - a string, true, false and null match their text; an array or object inside an array its
//   minified text;
// - a number as SQLite compares it: a JSON integer within 64 bits exactly ('i', the integer), any
//   other number as a double ('r', as JavaScript prints it), so the value asked for gives both forms.
// A key is a 53-bit hash (finish) of the text `step,step,...,tag:value` (a step is a member name
// as a JSON string or an index as digits): 8 bytes whatever the path and value. The full texts made
// a 1 KB body's keys 2.3 KB, and PostgreSQL ingest (fsync on) fell from ~60 % to ~33 % of SQLite mode
// under the extra WAL. The body is read as bytes: its UTF-8 is hashed as the UTF-16 code units it
// encodes, the units keyOf hashes from the value asked for; decoding it to a string first took 10 µs
// of the main thread for the bench body instead of 6 (bench/README.md). Two different texts share a
// hash with probability 2^-53: a keyed filter then also lists a body that does not hold the value.
// A body the keys cannot describe exactly gets none (NULL): the query then walks its text.
// The hash is key-hash.ts, the number forms key-forms.ts, the reader key-reader.ts.

/**
 * The keys of a stored body (see above): none for a body that is not JSON or has no text in the row
 * (binary, empty, offloaded), and null for one the keys cannot describe exactly (walked when queried).
 */
export function bodyKeys(kind: BodyKind, raw: Uint8Array | null): number[] | null {
    if (!raw || raw.byteLength === 0 || (kind !== 'json' && kind !== 'text')) return [];
    if (raw.byteLength > MAX_BYTES) return null;
    if (kind === 'text') {
        const verdict = scanJsonText(raw);
        if (verdict === 'invalid') return [];
        if (verdict === 'too-deep') return null;
    }
    const reader = new Reader(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
    try {
        reader.value(null);
    } catch (error) {
        // A stack overflow: a body nested deeper than the scanner lets through (a restored one).
        if (error instanceof Unkeyed || error instanceof RangeError) return null;
        throw error;
    }
    return reader.keys;
}

/** The two bits of a key in a signature (keySignature): its hash's lowest two 6-bit groups. */
const keyBits = (key: number): [number, number] => [key % 64, Math.floor(key / 64) % 64];

/**
 * A body's keys folded into 64 bits, two bits per key (a Bloom filter); null for a body without keys
 * (walked when queried). Every sort index carries it (query-indexes.ts): a page walked in sort order
 * tests a keyed body filter in the index entry, and reads the table only for the rows whose signature
 * holds both bits of one of the filter's keys (query/keyed.ts). The bench body's 7 keys set 13 of 64
 * bits on average, so about 1 row in 25 without the key passes; a body with hundreds of keys has
 * nearly every bit set, and its row is read as before.
 */
export function keySignature(keys: readonly number[] | null): bigint | null {
    if (keys === null) return null;
    let low = 0;
    let high = 0;
    for (const key of keys) {
        for (const bit of keyBits(key)) {
            if (bit < 32) low |= 1 << bit;
            else high |= 1 << (bit - 32);
        }
    }
    return BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
}

/** A body's keys and their signature: the two columns of an event that a direct insert writes (tests, benches). */
export const keyColumns = (keys: number[] | null): [number[] | null, bigint | null] => [keys, keySignature(keys)];

/**
 * `keys` as one text, for an insert that takes a text per event (arrays of arrays must be
 * rectangular): comma-joined, split by string_to_array(text, ',')::bigint[]. Null stays null.
 */
export const joinedKeys = (keys: readonly number[] | null): string | null => (keys === null ? null : keys.join(','));
