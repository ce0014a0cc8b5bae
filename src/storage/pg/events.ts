import type pg from 'pg';
import { NotFoundError } from '../../errors.js';
import { rowToEntry } from '../rows.js';
import { REPLAY_HISTORY } from './keys.js';
import type { ForwardSource } from '../event-store.js';
import type { ExportEntry, ForwardOutcome, LogEntry, ReplayRecord, StoredBody } from '../types.js';
import { rows } from './pool.js';
import { bodyRow, EVENT_WITH_BODY, eventRow, storable, storedBody, type PgEventBodyRow } from './rows.js';

type FullRow = PgEventBodyRow & { replays: string[]; forward: string | null };

/**
 * The event, its body, its latest replays (oldest first) and its forwarding outcome in one round
 * trip. With `sizeParam` (the `$n` of a byte limit, or NULL for none), a body over it is not read.
 */
const full = (sizeParam?: string): string => `SELECT ${EVENT_WITH_BODY},
    ARRAY(SELECT r.data FROM (SELECT id, data FROM replays WHERE event_id = e.id ORDER BY id DESC LIMIT ${REPLAY_HISTORY}) r ORDER BY r.id) AS replays,
    (SELECT data FROM forwards WHERE event_id = e.id) AS forward
    FROM events_all e LEFT JOIN bodies_all b ON b.seq = e.seq${sizeParam ? ` AND (${sizeParam}::bigint IS NULL OR e.size <= ${sizeParam})` : ''}`;

/** The full entry of a row with replays and forwarding outcome; `withBody` false leaves the body unread. */
function fullEntry(r: FullRow, withBody = true): LogEntry {
    const entry = rowToEntry(eventRow(r), withBody ? bodyRow(r) : undefined);
    entry.replays = r.replays.map((d) => JSON.parse(d) as ReplayRecord);
    if (r.forward !== null) entry.forward = JSON.parse(r.forward) as ForwardOutcome;
    return entry;
}

/** Point reads of events: entries, bodies, export records, forward sources, the feed's resume. */
export class EventReads {
    constructor(private readonly pool: pg.Pool) {}

    /** The full entry; NotFoundError when no event has this id. */
    async getEntry(id: string): Promise<LogEntry> {
        const [row] = storable(id) ? await rows<FullRow>(this.pool, `${full()} WHERE e.id = $1`, [id]) : [];
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        return fullEntry(row);
    }

    /** Entries committed after event `id`, by position; undefined when `id` is unknown. */
    async entriesAfter(id: string, limit: number, bodyLimit = Infinity): Promise<LogEntry[] | undefined> {
        const [start] = storable(id) ? await rows<{ seq: number }>(this.pool, 'SELECT seq FROM events_all WHERE id = $1', [id]) : [];
        if (!start) return undefined;
        // A body over bodyLimit is not read: a live-stream resume sends a reference for it.
        const list = await rows<FullRow>(this.pool, `${full('$3')} WHERE e.seq > $1 ORDER BY e.seq LIMIT $2`, [
            start.seq,
            limit,
            Number.isFinite(bodyLimit) ? Math.floor(bodyLimit) : null,
        ]);
        return list.map((r) => fullEntry(r));
    }

    /** The entries of those `ids` that exist, in the order given (the live feed's batch), in one round trip. */
    async entriesOf(ids: readonly string[], bodyLimit = Infinity): Promise<LogEntry[]> {
        const wanted = ids.filter(storable);
        if (wanted.length === 0) return [];
        const list = await rows<FullRow>(this.pool, `${full('$2')} WHERE e.id = ANY($1::text[])`, [
            wanted,
            Number.isFinite(bodyLimit) ? Math.floor(bodyLimit) : null,
        ]);
        const byId = new Map(list.map((r) => [r.id, r]));
        return wanted.flatMap((id) => {
            const row = byId.get(id);
            return row ? [fullEntry(row)] : [];
        });
    }

    async webhookOf(id: string): Promise<string | undefined> {
        if (!storable(id)) return undefined;
        const [row] = await rows<{ webhook_id: string }>(this.pool, 'SELECT webhook_id FROM events_all WHERE id = $1', [id]);
        return row?.webhook_id;
    }

    async idAtTimestamp(webhookId: string, ts: number): Promise<string | undefined> {
        if (!storable(webhookId)) return undefined;
        const [row] = await rows<{ id: string }>(this.pool, 'SELECT id FROM events_all WHERE webhook_id COLLATE "C" = $1 AND ts = $2 ORDER BY id COLLATE "C" DESC LIMIT 1', [webhookId, ts]);
        return row?.id;
    }

    private async withBody(id: string): Promise<PgEventBodyRow | undefined> {
        if (!storable(id)) return undefined;
        const [row] = await rows<PgEventBodyRow>(this.pool, `SELECT ${EVENT_WITH_BODY} FROM events_all e LEFT JOIN bodies_all b ON b.seq = e.seq WHERE e.id = $1`, [id]);
        return row;
    }

    /** The stored body; NotFoundError when no event has this id. */
    async getBody(id: string): Promise<StoredBody> {
        const row = await this.withBody(id);
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        return storedBody(row, bodyRow(row));
    }

    /** The entry without replays, forward or decoded body, and the stored body. */
    async getExportRecord(id: string): Promise<{ entry: ExportEntry; body: StoredBody }> {
        const row = await this.withBody(id);
        if (!row) throw new NotFoundError(`Log entry '${id}' not found`);
        // The body row is passed as absent so a JSON body is not parsed for nothing: `body` carries its bytes.
        const { body: _unread, bodyEncoding: _none, ...entry } = rowToEntry(eventRow(row), undefined);
        return { entry, body: storedBody(row, bodyRow(row)) };
    }

    /** The stored request for forwarding, or undefined. */
    async forwardSource(id: string): Promise<ForwardSource | undefined> {
        const row = await this.withBody(id);
        if (!row) return undefined;
        return { method: row.method, headers: JSON.parse(row.headers) as Record<string, unknown>, body: storedBody(row, bodyRow(row)) };
    }
}
