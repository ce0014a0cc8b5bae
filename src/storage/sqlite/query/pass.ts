import type { CursorPosition, LogsPage } from '../../query-types.js';
import { rowToSummary } from '../rows.js';
import { mergeFirst, rowOrder } from './merge.js';
import type { CountShape, PageRow, PageShape } from './page.js';

/**
 * A pass over every body that a query still needs, with what it takes to finish the page: the
 * first `reach` matching rows among events up to seq `top` (and with `withTotal` their count).
 * Plain data, so a query worker can hand it to others that each read one seq range of it.
 */
export interface PassRequest {
    shape: PageShape;
    reach: number;
    top: number;
    withTotal: boolean;
    cursorMode: boolean;
    limit: number;
    offset: number;
    /** A total the page already knows (counted without a pass). */
    total?: number;
}

/** What a pass over one seq range found: its first `reach` rows in order, and its count. */
export interface PassResult {
    rows: PageRow[];
    total?: number;
}

/**
 * A total a page still needs: the matches of `shape` among events up to seq `top` (a count that
 * reads every row), for the pool to count by seq range on several workers. `key` and `epoch` key
 * its append-only cache (see count-cache.ts). Plain data, like a PassRequest.
 */
export interface CountRequest {
    shape: CountShape;
    top: number;
    key: string;
    epoch: string;
}

/** Splits (from, top] into at most `parts` consecutive seq ranges [lo, hi] meaning (lo, hi]; none empty when top > from. */
export function splitRange(top: number, parts: number, from = 0): [number, number][] {
    const n = Math.max(1, Math.min(parts, top - from));
    const bounds = Array.from({ length: n + 1 }, (_, i) => from + Math.round(((top - from) * i) / n));
    return bounds.slice(1).map((hi, i) => [bounds[i]!, hi]);
}

/** Merges the results of passes over disjoint seq ranges into the result of one pass over all. */
export function mergePasses(pass: PassRequest, results: readonly PassResult[]): PassResult {
    const cmp = rowOrder(pass.shape.order);
    let rows: PageRow[] = [];
    let total = 0;
    for (const r of results) {
        rows = mergeFirst(rows, r.rows, cmp, pass.reach);
        total += r.total ?? 0;
    }
    return pass.withTotal ? { rows, total } : { rows };
}

/** The page a finished pass gives: the rows after the offset, and the total or the next cursor. */
export function finishPass(pass: PassRequest, scanned: PassResult): LogsPage {
    const rows = scanned.rows.slice(pass.offset);
    if (pass.cursorMode) {
        const more = rows.length > pass.limit;
        if (more) rows.length = pass.limit;
        const last = rows[rows.length - 1];
        return { items: rows.map(rowToSummary), next: more && last ? positionOf(last, pass.shape.order.length) : null };
    }
    return { items: rows.map(rowToSummary), total: pass.total ?? scanned.total! };
}

/** The cursor position of a row: its sort values (remoteIp bytes as hex) and id. */
export function positionOf(row: PageRow, keys: number): CursorPosition {
    const values: (string | number | null)[] = [];
    for (let i = 0; i < keys - 1; i++) {
        const v = row[`k${i}`] ?? null;
        values.push(Buffer.isBuffer(v) ? v.toString('hex').toUpperCase() : v);
    }
    return { values, id: row.id };
}

/**
 * Turns the byte arrays of a record that crossed threads back into Buffers, in place: structured
 * cloning drops the Buffer prototype, and SQLite binding and the JS merge need Buffers.
 */
export function restoreBuffers<T extends object>(record: T): T {
    const r = record as Record<string, unknown>;
    for (const [key, value] of Object.entries(r)) {
        if (value instanceof Uint8Array && !Buffer.isBuffer(value)) r[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    }
    return record;
}
