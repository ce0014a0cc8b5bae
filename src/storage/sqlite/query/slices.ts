import type { Database } from 'better-sqlite3';
import { prepared } from './statements.js';

/** Most rows one slice of a pass reads (see scan.ts for why passes go in slices). */
export const SLICE = 10_000;
/**
 * What one row costs a pass besides a large body: its event row and a small body. 10,000 rows of
 * ~1 KB took ~8 ms (bench/README.md, "Query pool under contention"), so a slice is ~10 MB either way.
 */
export const ROW_BYTES = 1024;
/** Most bytes one slice reads by default: SLICE rows of ROW_BYTES, so small bodies slice as before. */
export const SLICE_BYTES = SLICE * ROW_BYTES;
/**
 * Bodies above this size are looked up one by one (through the size index) and counted at their
 * size; smaller ones count as ROW_BYTES. The lookup reads ~20 bytes of index per listed body, well
 * under 1% of the body itself, and finds none in a store of small bodies.
 */
export const LARGE_BODY = 2048;

/** How big a slice may get: rows and bytes. */
export interface SliceLimits {
    rows: number;
    bytes: number;
}

/** The large bodies of a seq range, in seq order: parallel arrays of seq and size. */
export interface LargeBodies {
    seqs: number[];
    sizes: number[];
}

/** No large bodies: slices by rows alone (a count that reads no body). */
export const NO_LARGE_BODIES: LargeBodies = { seqs: [], sizes: [] };

/**
 * The events in seq range (from, to] whose body is larger than LARGE_BODY. `size` is the body's size
 * in bytes (an offloaded body is not read by a search, so counting it only makes a slice shorter).
 */
export function largeBodies(db: Database, from: number, to: number): LargeBodies {
    // INDEXED BY: with no statistics, SQLite would rather walk the rowid range, reading every event row.
    const rows = prepared(db, 'SELECT seq, size FROM events INDEXED BY events_size WHERE size > @large AND seq > @from AND seq <= @to ORDER BY seq')
        .raw().all({ large: LARGE_BODY, from, to }) as [number, number][];
    if (rows.length === 0) return NO_LARGE_BODIES;
    return { seqs: rows.map((r) => r[0]), sizes: rows.map((r) => r[1]) };
}

/**
 * Consecutive seq ranges [lo, hi] meaning (lo, hi] that cover (from, to], each within `limits`: at
 * most `rows` rows, and at most `bytes` counting ROW_BYTES a row plus the size of each large body.
 * A slice always takes at least one row, so a body larger than `bytes` is a slice of its own.
 * Seq gaps count as rows, which only makes slices shorter.
 */
export function* byteSlices(large: LargeBodies, from: number, to: number, limits: SliceLimits): Generator<[number, number], void, void> {
    const { seqs, sizes } = large;
    let k = 0;
    while (k < seqs.length && seqs[k]! <= from) k++;
    for (let lo = from; lo < to;) {
        let hi = Math.min(to, lo + limits.rows);
        let sum = 0;
        let last = lo + 1;
        while (k < seqs.length && seqs[k]! <= hi) {
            const seq = seqs[k]!;
            const over = (seq - lo) * ROW_BYTES + sum + sizes[k]! > limits.bytes;
            if (over && seq - 1 > lo) {
                hi = seq - 1;
                break;
            }
            sum += sizes[k++]!;
            last = seq;
            if (over) {
                hi = seq;
                break;
            }
        }
        // Small rows after the last large body may still overrun the budget: end the slice where it runs out.
        hi = Math.min(hi, Math.max(last, lo + Math.floor((limits.bytes - sum) / ROW_BYTES)));
        yield [lo, hi];
        lo = hi;
    }
}
