import type { SortRule } from '../../query-types.js';
import type { PageRow } from './page.js';

type Key = string | number | Buffer | null;

/** Compares text as SQLite's BINARY collation does: by UTF-8 bytes, which is code point order. */
function compareText(a: string, b: string): number {
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
        const ca = a.codePointAt(i)!;
        const cb = b.codePointAt(j)!;
        if (ca !== cb) return ca - cb;
        i += ca > 0xffff ? 2 : 1;
        j += cb > 0xffff ? 2 : 1;
    }
    // Equal up to the shorter one, which sorts first.
    return a.length - i - (b.length - j);
}

/** SQLite's order of two values of one column: NULL first, then numbers, text, blobs. */
export function compareKeys(a: Key, b: Key): number {
    if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
    if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return Buffer.compare(a, b);
    const rank = (v: Key): number => (typeof v === 'number' ? 1 : typeof v === 'string' ? 2 : 3);
    return rank(a) - rank(b);
}

/** A comparator of result rows by their k0..kN columns under `order`. */
export function rowOrder(order: readonly SortRule[]): (a: PageRow, b: PageRow) => number {
    return (a, b) => {
        for (let i = 0; i < order.length; i++) {
            const c = compareKeys(a[`k${i}`] ?? null, b[`k${i}`] ?? null);
            if (c !== 0) return order[i]!.dir === 'asc' ? c : -c;
        }
        return 0;
    };
}

/** The first `max` rows of two lists sorted by `cmp`, still sorted. */
export function mergeFirst(a: PageRow[], b: PageRow[], cmp: (x: PageRow, y: PageRow) => number, max: number): PageRow[] {
    const out: PageRow[] = [];
    let i = 0;
    let j = 0;
    while (out.length < max && (i < a.length || j < b.length)) {
        if (j >= b.length || (i < a.length && cmp(a[i]!, b[j]!) <= 0)) out.push(a[i++]!);
        else out.push(b[j++]!);
    }
    return out;
}
