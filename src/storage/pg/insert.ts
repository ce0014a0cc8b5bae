import type pg from 'pg';
import { recordForward, recordId, recordParams, type EventRecord } from '../sqlite/rows.js';
import { EVENTS_CHANNEL, LOCKS } from './schema.js';

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

const EVENT_TYPES = ['bigint', 'text', 'text', 'bigint', 'text', 'int', 'bigint', 'float8', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'boolean', 'text', 'text', 'text', 'text', 'text', 'bytea'];
const unnestOf = (types: string[], from: number): string => `unnest(${types.map((t, i) => `$${from + i}::${t}[]`).join(', ')})`;

// One statement for every table: the data-modifying CTEs all run, in one round trip.
const INSERT_GROUP = `WITH e AS (
    INSERT INTO events (seq, id, webhook_id, ts, method, status_code, size, processing_time, request_id, request_url,
        content_type, remote_ip, user_agent, headers, query, response_headers, response_body, signature_valid,
        signature_provider, signature_error, body_kind, blob_key, meta, ip_bin, origin)
    SELECT *, $25::text FROM ${unnestOf(EVENT_TYPES, 1)}
), b AS (
    INSERT INTO bodies (seq, text, raw) SELECT * FROM unnest($26::bigint[], $27::text[], $28::bytea[])
), o AS (
    INSERT INTO outbox (seq, owner) SELECT s, $25::text FROM unnest($29::bigint[]) AS s
), f AS (
    INSERT INTO forward_backlog (seq, event_id, exact, owner) SELECT *, $25::text FROM unnest($30::bigint[], $31::text[], $32::boolean[])
)
SELECT pg_notify('${EVENTS_CHANNEL}', $33)`;

/**
 * Inserts encoded events in the current transaction with consecutive positions, and notifies the
 * other instances at commit. `fresh` captures join the outbox and (when forwarded) the forwarding
 * backlog, owned by `instanceId`; imported ones join neither. Resolves with the last position.
 */
export async function insertEvents(client: pg.PoolClient, records: readonly EventRecord[], instanceId: string, fresh: boolean): Promise<number> {
    const first = await takePositions(client, records.length);
    const columns: unknown[][] = EVENT_TYPES.map(() => []);
    const bodies: [number[], (string | null)[], (Buffer | null)[]] = [[], [], []];
    const backlog: [number[], string[], boolean[]] = [[], [], []];
    records.forEach((record, i) => {
        const seq = first + i;
        const { params, body } = recordParams(record);
        columns[0]!.push(seq);
        params.forEach((value, c) => columns[c + 1]!.push(c === 16 ? (value === null ? null : value === 1) : value));
        if (body) {
            const text = body.binary ? null : body.bytes.toString('utf8');
            // PostgreSQL text cannot hold U+0000: such a body keeps its bytes (rows.ts reads them as text).
            const asBytes = text === null || text.includes('\u0000');
            bodies[0].push(seq);
            bodies[1].push(asBytes ? null : text);
            bodies[2].push(asBytes ? body.bytes : null);
        }
        const forward = recordForward(record);
        if (fresh && forward !== null) {
            backlog[0].push(seq);
            backlog[1].push(recordId(record));
            backlog[2].push(forward === 1);
        }
    });
    const last = first + records.length - 1;
    const outbox = fresh ? columns[0]! : [];
    await client.query(INSERT_GROUP, [...columns, instanceId, ...bodies, outbox, ...backlog, String(last)]);
    return last;
}
