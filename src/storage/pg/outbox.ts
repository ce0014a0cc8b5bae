import type pg from 'pg';
import type { OutboxItem } from '../event-store.js';
import { rowToEntry } from '../rows.js';
import { SINK_POSITION_KEY } from '../meta-keys.js';
import { claimableBy, type ClaimRule } from './instances.js';
import { prepared, rows, transaction } from './pool.js';
import { bodyRow, EVENT_WITH_BODY, eventRow, type PgEventBodyRow } from './rows.js';

// Rows of no live instance become mine; SKIP LOCKED so two instances claiming at once never wait
// on, or both take, the same rows.
const CLAIM = prepared('whd_outbox_claim', `UPDATE outbox SET owner = $1 WHERE seq IN (
    SELECT seq FROM outbox WHERE ${claimableBy(1, 2, 4)} ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)`);

// Sizes first (no body is read), so a batch is cut by bytes before any body loads (as SQLite's).
// The outbox rows are picked first (MATERIALIZED: LIMIT before the join): as a plain join the
// planner, without statistics on a young table, joined every pending row to its event and then
// sorted (16 ms for 3,000 pending rows, instead of 0.8 ms), once per export batch while ingesting.
const SIZES = prepared('whd_outbox_sizes', `WITH o AS MATERIALIZED (SELECT seq FROM outbox WHERE owner = $1 AND seq > $2 ORDER BY seq LIMIT $3)
    SELECT o.seq, (CASE WHEN e.body_kind = 'offloaded' THEN 0 ELSE e.size END)
    + length(e.headers) + length(e.query) + length(e.response_body) + 512 AS bytes
    FROM o JOIN events_all e ON e.seq = o.seq ORDER BY o.seq`);

const ITEMS = prepared('whd_outbox_items', `SELECT ${EVENT_WITH_BODY} FROM outbox o JOIN events_all e ON e.seq = o.seq LEFT JOIN bodies_all b ON b.seq = o.seq
    WHERE o.owner = $1 AND o.seq > $2 AND o.seq <= $3 ORDER BY o.seq LIMIT $4`);

/**
 * The export outbox shared by instances: each exports the events it captured (it owns their rows),
 * and claims those of instances that stopped beating.
 */
export class PgOutbox {
    constructor(
        private readonly pool: pg.Pool,
        private readonly instanceId: string,
        /** When this instance may take over the work of instances that stopped beating (instances.ts). */
        private readonly claims: ClaimRule,
    ) {}

    /** The oldest events this instance exports, within `limit` and `maxBytes` (see ExportOutbox). */
    async readOutbox(limit: number, maxBytes = Infinity, afterSeq?: number): Promise<OutboxItem[]> {
        const me = this.instanceId;
        // A fresh batch first takes over what dead instances left; a slice reads only what is claimed.
        if (afterSeq === undefined) await rows(this.pool, CLAIM, [me, this.claims.settled(), limit, this.claims.deadAfterS]);
        const sizes = await rows<{ seq: number; bytes: number }>(this.pool, SIZES, [me, afterSeq ?? 0, limit]);
        // From the watermark, always at least one event, however large; then as many as fit in maxBytes.
        let taken = afterSeq === undefined ? Math.min(1, sizes.length) : 0;
        let bytes = taken === 1 ? sizes[0]!.bytes : 0;
        while (taken < sizes.length && bytes + sizes[taken]!.bytes <= maxBytes) bytes += sizes[taken++]!.bytes;
        if (taken === 0) return [];
        const bytesOf = new Map(sizes.slice(0, taken).map((s) => [s.seq, s.bytes]));
        const list = await rows<PgEventBodyRow>(this.pool, ITEMS, [me, afterSeq ?? 0, sizes[taken - 1]!.seq, taken]);
        return list.map((r) => {
            const body = bodyRow(r);
            const item: OutboxItem = { seq: r.seq, entry: rowToEntry(eventRow(r), body), bytes: bytesOf.get(r.seq) ?? 0 };
            if (r.body_kind === 'json' && body?.text != null) item.rawText = body.text;
            return item;
        });
    }

    /**
     * Marks this instance's outbox rows up to `seq` as exported, and commits the sink's position with
     * it (under the meta key SQLite uses, which compose.ts reads at start to open the dataset).
     */
    async markExported(seq: number, sinkPosition?: string): Promise<void> {
        await transaction(this.pool, async (client) => {
            await client.query('DELETE FROM outbox WHERE owner = $1 AND seq <= $2', [this.instanceId, seq]);
            if (sinkPosition !== undefined) {
                await client.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [SINK_POSITION_KEY, sinkPosition]);
            }
        });
    }
}
