import { ipToBytes } from '../../lib/ip.js';
import { BODY, BODY_KIND, REMOTE_IP, type EventRecord } from '../rows.js';

// The SQLite side of rows: its INSERT statements and parameters. What every backend shares (row
// types, encodeEvent, rowToEntry) lives in ../rows.ts and is re-exported here.
export * from '../rows.js';

/** The INSERT statement for an EventRecord: its columns in order, then ip_bin. */
export const INSERT_EVENT = `INSERT INTO events (id, webhook_id, ts, method, status_code, size, processing_time, request_id,
    request_url, content_type, remote_ip, user_agent, headers, query, response_headers, response_body,
    signature_valid, signature_provider, signature_error, body_kind, blob_key, meta, answered_index, answered_by, form_fields, form_files, form_error, ip_bin)
    VALUES (${Array.from({ length: 28 }, () => '?').join(', ')})`;

// Senders repeat: the last address's bytes are kept (binding copies them, so sharing is safe).
let lastIp = '';
let lastIpBytes: Buffer | null = null;
function ipBytes(ip: string): Buffer | null {
    if (ip !== lastIp) {
        lastIp = ip;
        lastIpBytes = ipToBytes(ip);
    }
    return lastIpBytes;
}

/**
 * Splits an EventRecord into the INSERT_EVENT parameters and the `bodies` row, both as bytes:
 * textual kinds are stored as TEXT by INSERT_TEXT_BODY (a cast, not a decode and re-encode),
 * binary as a BLOB. Empty and offloaded bodies have no row. The record is left as it is: a group
 * commit that fails is retried request by request with the same records.
 */
export function recordParams(r: EventRecord): { params: unknown[]; body: { bytes: Buffer; binary: boolean } | null } {
    const bytes = r[BODY];
    const params: unknown[] = r.slice(0, BODY);
    params.push(ipBytes(r[REMOTE_IP]));
    if (!bytes) return { params, body: null };
    return { params, body: { bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), binary: r[BODY_KIND] === 'binary' } };
}

/** Inserts the `bodies` row of a textual body: (seq, UTF-8 bytes). */
export const INSERT_TEXT_BODY = 'INSERT INTO bodies (seq, text) VALUES (?, CAST(? AS TEXT))';
/** Inserts the `bodies` row of a binary body: (seq, bytes). */
export const INSERT_RAW_BODY = 'INSERT INTO bodies (seq, raw) VALUES (?, ?)';

