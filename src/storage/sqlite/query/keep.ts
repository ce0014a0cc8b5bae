import type { CursorPosition, SortRule } from '../../query-types.js';
import { mergeFirst, rowOrder } from './merge.js';
import type { PageRow } from './page.js';
import { positionOf } from './pass.js';

/**
 * The first `reach` rows, in order, of the pieces a pass reads slice by slice. Pieces wait in a
 * list and are sorted into the kept rows once they add up to a quarter of `reach`, so a pass of a
 * thousand slices costs about one sort of what it found, not a thousand merges of `reach` rows.
 * Rows are totally ordered (the order ends with the unique id), so the result does not depend on
 * how the rows were cut into pieces.
 */
export class FirstRows {
    private kept: PageRow[] = [];
    private pending: PageRow[] = [];
    private readonly cmp: (a: PageRow, b: PageRow) => number;

    constructor(private readonly order: readonly SortRule[], private readonly reach: number) {
        this.cmp = rowOrder(order);
    }

    /** Adds a piece (in any order). */
    add(piece: readonly PageRow[]): void {
        for (const row of piece) this.pending.push(row);
        if (this.pending.length >= Math.max(64, this.reach >> 2)) this.settle();
    }

    /**
     * Once `reach` rows are kept, the position of the last: a later row can only count if it sorts
     * before it, so a slice need not return the others (see scan.ts).
     */
    bar(): CursorPosition | undefined {
        const last = this.kept.length === this.reach ? this.kept[this.reach - 1] : undefined;
        return last ? positionOf(last, this.order.length) : undefined;
    }

    /** The first `reach` rows of everything added, in order. */
    rows(): PageRow[] {
        this.settle();
        return this.kept;
    }

    private settle(): void {
        if (this.pending.length === 0) return;
        this.kept = mergeFirst(this.kept, this.pending.sort(this.cmp), this.cmp, this.reach);
        this.pending = [];
    }
}
