import { isUtf8 } from 'node:buffer';
import type pg from 'pg';
import { ipToBytes } from '../../lib/ip.js';
import { BODY, BODY_KIND, QUERY, recordForward, REMOTE_IP, REQUEST_URL, type EventRecord } from '../rows.js';
import { binaryArray, type ElementType } from './binary-array.js';
import { bodyKeys, joinedKeys, keySignature } from './body-keys.js';
import { EVENTS_CHANNEL, LOCKS } from './keys.js';
import { prepared } from './pool.js';
import { queryInUrl } from './query-in-url.js';

/** Takes the events lock (until commit) and `n` consecutive positions; resolves with the first. */
export async function takePositions(client: pg.PoolClient, n: number): Promise<number> {
    // The lock is taken first (the subquery runs before the projection): groups of every instance
    // commit one at a time in position order, so a reader of `seq > last` never misses a later commit.
    const { rows } = await client.query<{ last: number }>(
        `SELECT setval('events_seq', nextval('events_seq') + $2 - 1) AS last FROM (SELECT pg_advisory_xact_lock($1)) AS locked`,
        [LOCKS.events, n],
    );
    return rows[0]!.last - n + 1;
}

/** The columns of `events` after seq, in EventRecord order, then ip_bin, with their SQL types. */
const COLUMNS: [name: string, type: ElementType][] = [
    ['id', 'text'], ['webhook_id', 'text'], ['ts', 'bigint'], ['method', 'text'], ['status_code', 'int'], ['size', 'bigint'],
    ['processing_time', 'float8'], ['request_id', 'text'], ['request_url', 'text'], ['content_type', 'text'], ['remote_ip', 'text'],
    ['user_agent', 'text'], ['headers', 'text'], ['query', 'text'], ['response_headers', 'text'], ['response_body', 'text'],
    ['signature_valid', 'boolean'], ['signature_provider', 'text'], ['signature_error', 'text'], ['body_kind', 'text'], ['blob_key', 'text'],
    ['meta', 'text'], ['answered_index', 'int'], ['answered_by', 'text'], ['form_fields', 'text'], ['form_files', 'text'], ['form_error', 'text'], ['ip_bin', 'bytea'],
    // Each event's keys as one text (body-keys.ts joinedKeys), split on insert.
    ['body_keys', 'text'],
    // Their signature (body-keys.ts keySignature), which the sort indexes carry.
    ['body_sig', 'bigint'],
    // Whether the query JSON is its URL's query string parsed (query-in-url.ts), which the URL's index carries.
    ['query_plain', 'boolean'],
];
/** The names of the columns an insert writes after seq, in the order of its values (tests and benches insert rows directly). */
export const INSERT_COLUMNS: readonly string[] = COLUMNS.map(([name]) => name);
const IP_BIN = BODY;
const BODY_KEYS = BODY + 1;
const BODY_SIG = BODY + 2;
const QUERY_PLAIN = BODY + 3;
const SIGNATURE_VALID = 16;

/**
 * The group commit as one function call: one round trip and one statement (its own transaction
 * when called alone). It takes the events lock, then `n` consecutive positions, inserts every table
 * (the events and bodies into the inbox, see inbox.ts) and notifies the other instances at commit. Arguments: the event columns as arrays, the origin,
 * the bodies (1-based event index, text, bytes), whether the events join the outbox, the forwarding
 * backlog (event index, exact). Returns the last position.
 */
export const APPEND_FUNCTION_DDL = `CREATE OR REPLACE FUNCTION whd_append(${COLUMNS.map(([name, type]) => `a_${name} ${type}[]`).join(', ')},
    a_origin text, b_index int[], b_text text[], b_raw bytea[], to_outbox boolean, f_index int[], f_exact boolean[]) RETURNS bigint
-- The duplicate check must probe the id index: a plan cached while events was young (a fresh database
-- holds few rows until the mover fills it) scanned the whole table at every commit instead, ~0.7 ms a
-- batch within seconds of start (pg_stat_statements, bench/README.md). Nothing else here scans a table.
SET enable_seqscan = off
LANGUAGE plpgsql AS $fn$
DECLARE
    n int := cardinality(a_id);
    first bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(${LOCKS.events});
    first := setval('events_seq', nextval('events_seq') + n - 1) - n + 1;
    INSERT INTO events_inbox (seq, ${COLUMNS.map(([name]) => name).join(', ')}, origin)
        SELECT first + u.o - 1, ${COLUMNS.map(([name]) => (name === 'body_keys' ? `string_to_array(u.body_keys, ',')::bigint[]` : `u.${name}`)).join(', ')}, a_origin
        FROM unnest(${COLUMNS.map(([name]) => `a_${name}`).join(', ')}) WITH ORDINALITY AS u(${COLUMNS.map(([name]) => name).join(', ')}, o);
    -- The inbox's own index keeps ids unique within it; an id the mover already carried is refused the
    -- same way. Checked after the insert: an insert meeting a row the mover is carrying waits for the
    -- move to commit, and this statement's snapshot then sees the row in events (checked before, it
    -- saw neither and the id went in twice).
    IF EXISTS (SELECT 1 FROM events WHERE id = ANY(a_id)) THEN
        RAISE EXCEPTION 'duplicate event id' USING ERRCODE = 'unique_violation';
    END IF;
    INSERT INTO bodies_inbox (seq, text, raw) SELECT first + b.i - 1, b.t, b.r FROM unnest(b_index, b_text, b_raw) AS b(i, t, r);
    IF to_outbox THEN
        INSERT INTO outbox (seq, owner) SELECT first + o - 1, a_origin FROM generate_series(1, n) AS o;
    END IF;
    INSERT INTO forward_backlog (seq, event_id, exact, owner) SELECT first + f.i - 1, a_id[f.i], f.e, a_origin FROM unnest(f_index, f_exact) AS f(i, e);
    PERFORM pg_notify('${EVENTS_CHANNEL}', (first + n - 1)::text);
    RETURN first + n - 1;
END
$fn$`;

const CALL = prepared('whd_append', `SELECT whd_append(${[...COLUMNS.map(([, type]) => `${type}[]`), 'text', 'int[]', 'text[]', 'bytea[]', 'boolean', 'int[]', 'boolean[]'].map((t, i) => `$${i + 1}::${t}`).join(', ')}) AS last`);

/**
 * Inserts encoded events with consecutive positions and notifies the other instances at commit:
 * in its own transaction through `db` = the pool, or in the caller's through a client. `fresh`
 * captures join the outbox and (when forwarded) the forwarding backlog, owned by `instanceId`;
 * imported ones join neither. Resolves with the last position.
 */
export async function insertEvents(db: pg.Pool | pg.PoolClient, records: readonly EventRecord[], instanceId: string, fresh: boolean): Promise<number> {
    const columns: unknown[][] = COLUMNS.map(() => []);
    const bodies: [number[], (Uint8Array | null)[], (Uint8Array | null)[]] = [[], [], []];
    const backlog: [number[], boolean[]] = [[], []];
    records.forEach((record, i) => {
        // The record's columns up to the body, then ip_bin (the same 16 bytes as SQLite stores).
        for (let c = 0; c < BODY; c++) {
            const value = record[c];
            columns[c]!.push(c === SIGNATURE_VALID ? (value === null ? null : value === 1) : value);
        }
        columns[IP_BIN]!.push(ipToBytes(record[REMOTE_IP]));
        const raw = record[BODY];
        const keys = bodyKeys(record[BODY_KIND], raw);
        columns[BODY_KEYS]!.push(joinedKeys(keys));
        columns[BODY_SIG]!.push(keySignature(keys));
        columns[QUERY_PLAIN]!.push(queryInUrl(record[REQUEST_URL], record[QUERY]));
        if (raw) {
            // A textual body's UTF-8 bytes are its text value as they are (the array is binary). PostgreSQL
            // text cannot hold U+0000, and refuses bytes that are not UTF-8: such a body keeps its bytes
            // (rows.ts reads them as text). Ingest types neither as text, but a restored item may hold U+0000.
            const asText = record[BODY_KIND] !== 'binary' && raw.indexOf(0) === -1 && isUtf8(raw);
            bodies[0].push(i + 1);
            bodies[1].push(asText ? raw : null);
            bodies[2].push(asText ? null : raw);
        }
        const forward = recordForward(record);
        if (fresh && forward !== null) {
            backlog[0].push(i + 1);
            backlog[1].push(forward === 1);
        }
    });
    const values = [
        ...COLUMNS.map(([, type], c) => binaryArray(type, columns[c] as never[])),
        instanceId,
        binaryArray('int', bodies[0]),
        binaryArray('text', bodies[1]),
        binaryArray('bytea', bodies[2]),
        fresh,
        binaryArray('int', backlog[0]),
        binaryArray('boolean', backlog[1]),
    ];
    const { rows } = await db.query<{ last: number }>({ ...CALL, values });
    return rows[0]!.last;
}
