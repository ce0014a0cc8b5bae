import { DATASET_ITEM_MAX_BYTES } from './dataset-item.js';

/** How far back each read of the tail reaches again: what was appended in the last 10 s. */
export const OVERLAP_MS = 10_000;
/** ...but never more than this many items, so a busy dataset does not make each listing huge. */
export const MAX_OVERLAP_ITEMS = 2000;
/** Items re-read when following starts, for pushes that were in flight at that moment. */
export const FIRST_OVERLAP_ITEMS = 100;
/** Items fetched whole per request, and the bytes they may add up to (as the exporter's batches). */
export const FETCH_ITEMS = 1000;
export const FETCH_BYTES = 8 * 1024 * 1024;

/**
 * Where the next listing of the tail starts. The dataset gives no order between writers: a push
 * still in flight may land before items already seen. So each listing starts where the tail stood
 * OVERLAP_MS ago (bounded by MAX_OVERLAP_ITEMS), not where the previous one ended; while the dataset
 * is idle the window closes, and a listing returns nothing.
 */
export class TailWindow {
    private marks: { at: number; pos: number }[];

    constructor(private settled: number, now: number) {
        this.marks = [{ at: now, pos: Math.max(0, settled - FIRST_OVERLAP_ITEMS) }];
    }

    /** Everything before this position was read and merged (or found to be known). */
    get position(): number {
        return this.settled;
    }

    /** The offset to list from at `now`. */
    start(now: number): number {
        let i = this.marks.length - 1;
        while (i > 0 && this.marks[i]!.at > now - OVERLAP_MS) i--;
        // Marks older than the one in use will never be used again.
        this.marks = this.marks.slice(i);
        const from = Math.min(this.marks[0]!.pos, this.settled);
        return Math.max(0, from, this.settled - MAX_OVERLAP_ITEMS);
    }

    /** Records how far a listing at `now` got. */
    advance(now: number, settled: number): void {
        this.settled = settled;
        this.marks.push({ at: now, pos: settled });
    }

    /** The dataset is shorter than our position (it was replaced): follow it from its end. */
    reset(now: number, total: number): void {
        this.settled = total;
        this.marks = [{ at: now, pos: total }];
    }
}

/** A run of consecutive items to fetch whole: `from` and `to` are indexes into a listing. */
export interface FetchRange {
    from: number;
    to: number;
}

/**
 * Groups the wanted items of a listing into requests: consecutive items, at most FETCH_ITEMS each
 * and FETCH_BYTES of estimated size, counting the unwanted items a range spans (they come along).
 * A body's size bounds its item (a body over the dataset's limit is replaced by a reference).
 */
export function fetchRanges(sizes: readonly number[], wanted: readonly number[]): FetchRange[] {
    const cost = (i: number): number => Math.min(sizes[i] ?? 0, DATASET_ITEM_MAX_BYTES) + 1024;
    const ranges: FetchRange[] = [];
    let current: (FetchRange & { bytes: number }) | undefined;
    for (const i of wanted) {
        if (current) {
            let extra = 0;
            for (let j = current.to + 1; j <= i; j++) extra += cost(j);
            if (i - current.from < FETCH_ITEMS && current.bytes + extra <= FETCH_BYTES) {
                current.to = i;
                current.bytes += extra;
                continue;
            }
            ranges.push({ from: current.from, to: current.to });
        }
        current = { from: i, to: i, bytes: cost(i) };
    }
    if (current) ranges.push({ from: current.from, to: current.to });
    return ranges;
}
