import type { StoredBody } from '../types.js';
import type { BodyRow, EventRow } from '../rows.js';

/** An `events` row as PostgreSQL returns it (EVENT_COLUMNS): booleans are booleans, plus origin. */
export type PgEventRow = Omit<EventRow, 'signature_valid'> & { signature_valid: boolean | null; ip_bin: Buffer | null; origin: string | null };

/** An events row with its body columns joined (`b.text AS b_text, b.raw AS b_raw`). */
export type PgEventBodyRow = PgEventRow & { b_text: string | null; b_raw: Buffer | null };

/** The columns of an event read back: all but body_keys, which only queries use (body-keys.ts). */
const EVENT_COLUMNS = ['seq', 'id', 'webhook_id', 'ts', 'method', 'status_code', 'size', 'processing_time', 'request_id', 'request_url', 'content_type',
    'remote_ip', 'ip_bin', 'user_agent', 'headers', 'query', 'response_headers', 'response_body', 'signature_valid', 'signature_provider', 'signature_error',
    'body_kind', 'blob_key', 'meta', 'origin', 'answered_index', 'answered_by', 'form_fields', 'form_files', 'form_error'];

/** The columns of an event with its body, for `FROM events_all e LEFT JOIN bodies_all b ON b.seq = e.seq`. */
export const EVENT_WITH_BODY = `${EVENT_COLUMNS.map((c) => `e.${c}`).join(', ')}, b.text AS b_text, b.raw AS b_raw`;

/** The row in the shape rows.ts decodes (SQLite's), so entries come out byte for byte the same. */
export function eventRow(r: PgEventRow): EventRow {
    return { ...r, signature_valid: r.signature_valid === null ? null : r.signature_valid ? 1 : 0 };
}

/**
 * The body row of a joined event, or undefined when it has none. A textual body holding U+0000
 * (which a PostgreSQL text value cannot hold) is stored as bytes; it reads back as its text.
 */
export function bodyRow(r: PgEventBodyRow): BodyRow | undefined {
    if (r.b_text === null && r.b_raw === null) return undefined;
    if (r.b_text === null && r.b_raw !== null && r.body_kind !== 'binary') return { text: r.b_raw.toString('utf8'), raw: null };
    return { text: r.b_text, raw: r.b_raw };
}

/** The stored body of an event row and its body row (as SQLite's storedBody). */
export function storedBody(row: PgEventRow, body: BodyRow | undefined): StoredBody {
    const stored: StoredBody = { kind: row.body_kind, contentType: row.content_type, size: row.size };
    if (row.blob_key) stored.blobKey = row.blob_key;
    if (body) stored.raw = body.raw ?? Buffer.from(body.text ?? '', 'utf8');
    else if (row.body_kind === 'empty') stored.raw = Buffer.alloc(0);
    return stored;
}

/** Whether a string can be a stored text value: PostgreSQL text cannot hold U+0000, so no id with it exists. */
export const storable = (text: string): boolean => !text.includes('\u0000');
