import Database from 'better-sqlite3';
import { INSERT_EVENT, INSERT_RAW_BODY, INSERT_TEXT_BODY, recordForward, recordId, recordParams, type EventRecord } from './rows.js';
import type { SyncMode } from '../event-store.js';
import { prepareWriter, REPLAY_HISTORY, SINK_POSITION_KEY, syncModeOf } from './schema.js';
import { deleter } from './writer-delete.js';
import { jobWriter } from './writer-jobs.js';
import type { WriterReply, WriterRequest } from './writer-protocol.js';

/** The single writer connection: applies a group of requests in one transaction (one fsync). */
export interface WriterCore {
    /** Commits the group; a failing request is retried alone so it cannot fail its neighbours. */
    commit(reqs: WriterRequest[]): WriterReply[];
    /** Checkpoints the WAL into the database file and closes. */
    close(): void;
}

/** Opens the database for writing and prepares the statements once. */
export function openWriterCore(file: string, sync: SyncMode): WriterCore {
    const db = new Database(file);
    prepareWriter(db, sync);
    const insertEvent = db.prepare(INSERT_EVENT);
    const insertText = db.prepare(INSERT_TEXT_BODY);
    const insertRaw = db.prepare(INSERT_RAW_BODY);
    const insertOutbox = db.prepare('INSERT INTO outbox (seq) VALUES (?)');
    // A deleted event is never imported again.
    const hasId = db.prepare('SELECT 1 FROM events WHERE id = @id UNION ALL SELECT 1 FROM deleted WHERE id = @id').pluck();
    const deleteOutbox = db.prepare('DELETE FROM outbox WHERE seq <= ?');
    const setMeta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    const insertReplay = db.prepare('INSERT INTO replays (event_id, data) SELECT @id, @data WHERE EXISTS (SELECT 1 FROM events WHERE id = @id)');
    const trimReplays = db.prepare(`DELETE FROM replays WHERE event_id = @id AND id <= (SELECT id FROM replays WHERE event_id = @id ORDER BY id DESC LIMIT 1 OFFSET ${REPLAY_HISTORY})`);
    // An outcome or a replay that ends after its event was deleted is not kept.
    const upsertForward = db.prepare('INSERT INTO forwards (event_id, data) SELECT @id, @data WHERE EXISTS (SELECT 1 FROM events WHERE id = @id) ON CONFLICT(event_id) DO UPDATE SET data = excluded.data');
    const insertBacklog = db.prepare('INSERT INTO forward_backlog (seq, event_id, exact) VALUES (?, ?, ?)');
    const deleteBacklog = db.prepare('DELETE FROM forward_backlog WHERE event_id = ?');

    const insert = (record: EventRecord, exported: boolean): number => {
        const { params, body } = recordParams(record);
        const seq = Number(insertEvent.run(params).lastInsertRowid);
        if (body) (body.binary ? insertRaw : insertText).run(seq, body.bytes);
        if (!exported) insertOutbox.run(seq);
        // Restored events are not forwarded again: only fresh captures join the backlog.
        const forward = recordForward(record);
        if (!exported && forward !== null) insertBacklog.run(seq, recordId(record), forward);
        return seq;
    };
    const remove = deleter(db);
    const jobs = jobWriter(db);
    const apply = (req: WriterRequest): WriterReply => {
        switch (req.op) {
            case 'append': {
                let lastSeq = 0;
                for (const r of req.records) lastSeq = insert(r, false);
                return { batch: req.batch, inserted: req.records.length, lastSeq };
            }
            case 'import': {
                let inserted = 0;
                for (const r of req.records) {
                    if (hasId.get({ id: recordId(r) })) continue;
                    insert(r, true);
                    inserted++;
                }
                return { batch: req.batch, inserted };
            }
            case 'exported':
                deleteOutbox.run(req.upToSeq);
                if (req.sinkPosition !== undefined) setMeta.run(SINK_POSITION_KEY, req.sinkPosition);
                return { batch: req.batch };
            case 'setMeta':
                setMeta.run(req.key, req.value);
                return { batch: req.batch };
            case 'replay':
                insertReplay.run({ id: req.eventId, data: req.data });
                trimReplays.run({ id: req.eventId });
                return { batch: req.batch };
            case 'forwards':
                for (const [id, data] of req.rows) {
                    upsertForward.run({ id, data });
                    deleteBacklog.run(id);
                }
                return { batch: req.batch };
            case 'delete':
                return { batch: req.batch, ...remove.events(req.ids) };
            case 'tombstones':
                remove.tombstones(req.ids);
                return { batch: req.batch };
            case 'vacuum':
                return { batch: req.batch, freePages: remove.vacuum(req.pages) };
            case 'describe':
                return { batch: req.batch, durability: syncModeOf(db) };
            case 'jobs':
                return { batch: req.batch, ...jobs(req.write) };
            case 'close':
                return { batch: req.batch };
        }
    };
    const transaction = db.transaction((reqs: WriterRequest[]) => reqs.map(apply));
    return {
        commit(reqs) {
            try {
                return transaction(reqs);
            } catch {
                return reqs.map((r) => {
                    try {
                        return transaction([r])[0]!;
                    } catch (error) {
                        return { batch: r.batch, error: error instanceof Error ? error.message : String(error) };
                    }
                });
            }
        },
        close() {
            db.pragma('wal_checkpoint(TRUNCATE)');
            db.close();
        },
    };
}
