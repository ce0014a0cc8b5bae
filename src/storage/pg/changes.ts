import type pg from 'pg';
import { payloadKey } from '../blob-store.js';
import { encodeEvent } from '../rows.js';
import { REPLAY_HISTORY } from './keys.js';
import type { ForwardOutcome, NewEvent, ReplayRecord } from '../types.js';
import { insertEvents } from './insert.js';
import { transaction } from './pool.js';
import { storable } from './rows.js';
import { LOCKS } from './schema.js';
import type { GroupWriter } from './writer.js';

/**
 * Bodies at least this large may have a copy in the blob store made by the dataset export (an item
 * over the dataset's limit is exported with a reference to it); their payload key is deleted too.
 */
const EXPORT_COPY_BYTES = 1_000_000;

/** Writes to events other than capture: imports, replays, outcomes, deletions, tombstones. */
export class EventChanges {
    constructor(private readonly pool: pg.Pool, private readonly writer: GroupWriter, private readonly instanceId: string) {}

    /** Inserts events unless their id exists or was deleted; neither exported nor forwarded. Resolves with how many were new. */
    importEvents(events: NewEvent[]): Promise<number> {
        if (events.length === 0) return Promise.resolve(0);
        // Between group commits: it takes event positions too.
        return this.writer.exclusive(() =>
            transaction(this.pool, async (client) => {
                // Under the events lock, so two instances importing the same events insert each once.
                await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.events]);
                // An id PostgreSQL cannot store (U+0000) is never imported.
                const ids = events.map((e) => e.id).filter(storable);
                const { rows } = await client.query<{ id: string }>('SELECT id FROM events_all WHERE id = ANY($1) UNION ALL SELECT id FROM deleted WHERE id = ANY($1)', [ids]);
                const seen = new Set(rows.map((r) => r.id));
                const records = [];
                for (const event of events) {
                    if (seen.has(event.id) || !storable(event.id)) continue;
                    seen.add(event.id);
                    records.push(encodeEvent(event));
                }
                if (records.length > 0) await insertEvents(client, records, this.instanceId, false);
                return records.length;
            }),
        );
    }

    /** Records a replay (kept: the latest 50); nothing when the event is gone. */
    async recordReplay(eventId: string, record: ReplayRecord): Promise<void> {
        if (!storable(eventId)) return;
        await transaction(this.pool, async (client) => {
            await client.query('INSERT INTO replays (event_id, data) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM events_all WHERE id = $1)', [eventId, JSON.stringify(record)]);
            await client.query(
                `DELETE FROM replays WHERE event_id = $1 AND id <= (SELECT id FROM replays WHERE event_id = $1 ORDER BY id DESC LIMIT 1 OFFSET ${REPLAY_HISTORY})`,
                [eventId],
            );
        });
    }

    /** Records final forwarding outcomes (the latest per event wins) and takes each event off the backlog. */
    async recordForwards(list: readonly { eventId: string; outcome: ForwardOutcome }[]): Promise<void> {
        if (list.length === 0) return;
        // One row per event (an upsert may touch a row once per statement): the latest outcome.
        const latest = new Map(list.filter((r) => storable(r.eventId)).map((r) => [r.eventId, JSON.stringify(r.outcome)]));
        if (latest.size === 0) return;
        const ids = [...latest.keys()];
        await transaction(this.pool, async (client) => {
            // An outcome reached after its event was deleted is not kept.
            await client.query(
                `INSERT INTO forwards (event_id, data) SELECT u.id, u.data FROM unnest($1::text[], $2::text[]) AS u(id, data)
                 WHERE EXISTS (SELECT 1 FROM events_all WHERE id = u.id) ON CONFLICT (event_id) DO UPDATE SET data = excluded.data`,
                [ids, [...latest.values()]],
            );
            await client.query('DELETE FROM forward_backlog WHERE event_id = ANY($1)', [ids]);
        });
    }

    /** Deletes events with everything kept for them; the ids become tombstones. */
    async deleteEvents(all: readonly string[]): Promise<{ deleted: number; blobKeys: string[] }> {
        const ids = all.filter(storable);
        if (ids.length === 0) return { deleted: 0, blobKeys: [] };
        return transaction(this.pool, async (client) => {
            // Not while the inbox mover carries rows (inbox.ts): an event it moved after our delete read the inbox would stay.
            await client.query('SELECT pg_advisory_xact_lock($1)', [LOCKS.inbox]);
            const rows: { seq: number; id: string; blob_key: string | null; size: number }[] = [];
            for (const table of ['events', 'events_inbox']) {
                rows.push(...(await client.query<(typeof rows)[number]>(`DELETE FROM ${table} WHERE id = ANY($1) RETURNING seq, id, blob_key, size`, [[...ids]])).rows);
            }
            if (rows.length === 0) return { deleted: 0, blobKeys: [] };
            const seqs = rows.map((r) => r.seq);
            const gone = rows.map((r) => r.id);
            for (const table of ['bodies', 'bodies_inbox', 'outbox']) await client.query(`DELETE FROM ${table} WHERE seq = ANY($1)`, [seqs]);
            for (const table of ['forward_backlog', 'replays', 'forwards']) await client.query(`DELETE FROM ${table} WHERE event_id = ANY($1)`, [gone]);
            await client.query('INSERT INTO deleted (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [gone]);
            // Cached counts of GET /logs assume events are only appended; a new epoch makes them lapse.
            await client.query(`INSERT INTO meta (key, value) VALUES ('events_epoch', '1') ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text`);
            const blobKeys = rows.flatMap((r) => (r.blob_key !== null ? [r.blob_key] : r.size >= EXPORT_COPY_BYTES ? [payloadKey(r.id)] : []));
            return { deleted: rows.length, blobKeys };
        });
    }

    /** Marks ids as deleted elsewhere: imports skip them. */
    async addTombstones(all: readonly string[]): Promise<void> {
        const ids = all.filter(storable);
        for (let i = 0; i < ids.length; i += 5000) {
            await transaction(this.pool, (client) => client.query('INSERT INTO deleted (id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [ids.slice(i, i + 5000)]));
        }
    }
}
