import { ipToBytes } from '../../src/lib/ip.js';
import { bodyKeys, keyColumns } from '../../src/storage/pg/body-keys.js';
import { queryInUrl } from '../../src/storage/pg/query-in-url.js';
import { BODY, encodeEvent } from '../../src/storage/rows.js';
import type { NewEvent } from '../../src/storage/types.js';

// Events written straight into PostgreSQL's `events` and `bodies`, as the backend stores them, for
// the query tests (query-fixture.ts) and the query bench's million-row load (bench/query-pg-load.ts):
// faster than the group commit, and past the inbox.

/** The columns of `events` an insert of eventRows writes, in the order of its `event` values. */
export const EVENT_COLUMNS = ['seq', 'id', 'webhook_id', 'ts', 'method', 'status_code', 'size', 'processing_time', 'request_id', 'request_url', 'content_type', 'remote_ip',
    'user_agent', 'headers', 'query', 'response_headers', 'response_body', 'signature_valid', 'signature_provider', 'signature_error', 'body_kind', 'blob_key', 'meta', 'answered_index', 'answered_by', 'form_fields', 'form_files', 'form_error', 'ip_bin', 'body_keys', 'body_sig', 'query_plain'];

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
    const raw = r[BODY];
    const binary = e.bodyKind === 'binary';
    return { event, body: raw ? [seq, binary ? null : Buffer.from(raw).toString('utf8'), binary ? Buffer.from(raw) : null] : undefined };
}

/** `($1, $2, ...), (...)`: the VALUES placeholders of `rows` rows of `columns` values each. */
export const placeholders = (rows: number, columns: number): string =>
    Array.from({ length: rows }, (_, r) => `(${Array.from({ length: columns }, (_, c) => `$${r * columns + c + 1}`).join(', ')})`).join(', ');
