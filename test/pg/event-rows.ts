import { ipToBytes } from '../../src/lib/ip.js';
import { bodyKeys, keyColumns } from '../../src/storage/pg/body-keys.js';
import { INSERT_COLUMNS } from '../../src/storage/pg/insert.js';
import { queryInUrl } from '../../src/storage/pg/query-in-url.js';
import { BODY, encodeEvent } from '../../src/storage/rows.js';
import type { NewEvent } from '../../src/storage/types.js';

// Events written straight into PostgreSQL's `events` and `bodies`, as the backend stores them, for
// the query tests (query-fixture.ts) and the query bench's million-row load (bench/query-pg-load.ts):
// faster than the group commit, and past the inbox.

/**
 * The columns of `events` an insert of eventRows writes, in the order of its `event` values: the
 * backend's own list (insert.ts), so that a column added there is written here too.
 */
export const EVENT_COLUMNS = ['seq', ...INSERT_COLUMNS];

/** The columns of `bodies`, in the order of eventRows' `body` values. */
export const BODY_COLUMNS = ['seq', 'text', 'raw'];

/**
 * An event's row at position `seq` as the SQLite backend encodes it (rows.ts encodeEvent: the same
 * JSON text, the same 16-byte address), with the keys the PostgreSQL backend writes (body-keys.ts)
 * and whether its query is its URL's (query-in-url.ts); and its body's row, if it has one: a
 * textual body as text, a binary one as bytes.
 */
export function eventRows(seq: number | string, e: NewEvent): { event: unknown[]; body: unknown[] | undefined } {
    const r = encodeEvent(e);
    const event = [seq, ...r.slice(0, 16), r[16] === null ? null : r[16] === 1, ...r.slice(17, BODY), ipToBytes(r[10]), ...keyColumns(bodyKeys(r[19], r[BODY])), queryInUrl(r[8], r[13])];
    // A value missing for a column would shift every row's values (PostgreSQL then counts the parameters wrong).
    if (event.length !== EVENT_COLUMNS.length) throw new Error(`eventRows made ${event.length} values for ${EVENT_COLUMNS.length} columns: keep it in step with insert.ts`);
    const raw = r[BODY];
    const binary = e.bodyKind === 'binary';
    return { event, body: raw ? [seq, binary ? null : Buffer.from(raw).toString('utf8'), binary ? Buffer.from(raw) : null] : undefined };
}

/** `($1, $2, ...), (...)`: the VALUES placeholders of `rows` rows of `columns` values each. */
export const placeholders = (rows: number, columns: number): string =>
    Array.from({ length: rows }, (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`).join(', ');
