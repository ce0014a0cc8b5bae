import type { CursorPosition, SortRule } from '../../query-types.js';
import { rowToSummary, SUMMARY_COLUMNS } from '../../rows.js';
import type { LogSummary } from '../../types.js';
import { INTEGER_SORT_FIELDS } from './columns.js';

/** The summary columns of `events e`, as SELECT list. */
export const SELECT_SUMMARY = SUMMARY_COLUMNS.split(', ').map((col) => `e.${col}`).join(', ');

/** A page row as node-postgres returns it (bigint may come as text, booleans as booleans). */
export type PgPageRow = Record<string, unknown> & { id: string };

/** A summary from a PostgreSQL row: the SQLite row shape first (numbers, 0/1 for the boolean). */
export function pgRowToSummary(r: PgPageRow): LogSummary {
    const valid = r.signature_valid as boolean | null;
    return rowToSummary({
        id: r.id,
        webhook_id: r.webhook_id as string,
        ts: Number(r.ts),
        method: r.method as string,
        status_code: Number(r.status_code),
        size: Number(r.size),
        processing_time: Number(r.processing_time),
        request_id: r.request_id as string,
        request_url: r.request_url as string,
        content_type: r.content_type as string,
        signature_valid: valid === null ? null : valid ? 1 : 0,
        signature_provider: r.signature_provider as string | null,
    });
}

/**
 * The cursor position of a row (its k0..kN sort values and id), with values as the SQLite backend
 * gives them: numbers, remoteIp bytes as uppercase hex, signatureValid as 0/1, null where absent.
 */
export function pgPositionOf(row: PgPageRow, order: readonly SortRule[]): CursorPosition {
    const values: (string | number | null)[] = [];
    for (let i = 0; i < order.length - 1; i++) {
        const field = order[i]!.field;
        const v = row[`k${i}`] ?? null;
        if (v === null) values.push(null);
        else if (Buffer.isBuffer(v)) values.push(v.toString('hex').toUpperCase());
        else if (typeof v === 'boolean') values.push(v ? 1 : 0);
        else if (INTEGER_SORT_FIELDS.has(field) || field === 'processingTime') values.push(Number(v));
        else values.push(v as string);
    }
    return { values, id: row.id };
}
