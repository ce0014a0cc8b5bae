import type { Database } from 'better-sqlite3';
import { payloadKey } from '../blob-store.js';

/**
 * Bodies at least this large may have a copy in the blob store made by the dataset export (an item
 * over the dataset's limit is exported with a reference to it); their payload key is deleted too.
 */
const EXPORT_COPY_BYTES = 1_000_000;

/** The writer's deletions: events with everything kept for them, and giving free pages back. */
export function deleter(db: Database): { events(ids: readonly string[]): { deleted: number; blobKeys: string[] }; tombstones(ids: readonly string[]): void; vacuum(pages: number): number } {
    const find = db.prepare('SELECT seq, blob_key AS blobKey, size FROM events WHERE id = ?');
    const statements = [
        db.prepare('DELETE FROM events WHERE seq = ?'),
        db.prepare('DELETE FROM bodies WHERE seq = ?'),
        db.prepare('DELETE FROM outbox WHERE seq = ?'),
        db.prepare('DELETE FROM forward_backlog WHERE seq = ?'),
    ];
    const byId = [db.prepare('DELETE FROM replays WHERE event_id = ?'), db.prepare('DELETE FROM forwards WHERE event_id = ?')];
    // Cached counts of GET /logs assume events are only appended; a new epoch makes them lapse (count-cache.ts).
    const bumpEpoch = db.prepare(`INSERT INTO meta (key, value) VALUES ('events_epoch', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`);
    const freePages = db.prepare('PRAGMA freelist_count').pluck();
    const tombstone = db.prepare('INSERT OR IGNORE INTO deleted (id) VALUES (?)');
    return {
        events(ids) {
            const blobKeys: string[] = [];
            let deleted = 0;
            for (const id of ids) {
                const row = find.get(id) as { seq: number; blobKey: string | null; size: number } | undefined;
                if (!row) continue;
                for (const statement of statements) statement.run(row.seq);
                for (const statement of byId) statement.run(id);
                tombstone.run(id);
                if (row.blobKey !== null) blobKeys.push(row.blobKey);
                else if (row.size >= EXPORT_COPY_BYTES) blobKeys.push(payloadKey(id));
                deleted++;
            }
            if (deleted > 0) bumpEpoch.run();
            return { deleted, blobKeys };
        },
        tombstones(ids) {
            for (const id of ids) tombstone.run(id);
        },
        vacuum(pages) {
            db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
            return freePages.get() as number;
        },
    };
}
