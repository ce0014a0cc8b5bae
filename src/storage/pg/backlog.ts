import type pg from 'pg';
import type { BacklogItem } from '../event-store.js';
import { takePositions } from './insert.js';
import { claimableBy, type ClaimRule } from './instances.js';
import { rows, transaction } from './pool.js';
import type { GroupWriter } from './writer.js';

/** How often a read looks for captures left by dead instances. */
const TAKEOVER_EVERY_MS = 1000;
const TAKEOVER_BATCH = 1000;

const CLAIM = `SELECT seq FROM forward_backlog WHERE ${claimableBy(1, 2, 4)} ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED`;

const MINE = 'SELECT seq, event_id, exact FROM forward_backlog WHERE owner = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4';

/**
 * The forwarding backlog shared by instances. Each forwards what it captured (it owns the rows,
 * and usually still holds the request in memory); captures of instances that stopped beating are
 * claimed once (SKIP LOCKED) and move to the end of the claimer's backlog with new positions, so a
 * forwarder whose cursor is past their old positions still reads them.
 */
export class PgForwardBacklog {
    private lastTakeover = 0;

    constructor(
        private readonly pool: pg.Pool,
        private readonly instanceId: string,
        private readonly writer: GroupWriter,
        /** When this instance may take over the work of instances that stopped beating (instances.ts). */
        private readonly claims: ClaimRule,
    ) {}

    /** Up to `limit` of this instance's captures to forward after `afterSeq`, in order (see ForwardBacklog). */
    async readForwardBacklog(afterSeq: number, limit: number): Promise<BacklogItem[]> {
        if (Date.now() - this.lastTakeover >= TAKEOVER_EVERY_MS) {
            this.lastTakeover = Date.now();
            await this.takeOver();
        }
        // Only captures whose append was answered: a row committed whose answer is on its way belongs
        // to a capture whose request has not reached the forwarder's memory yet (as in SQLite).
        const list = await rows<{ seq: number; event_id: string; exact: boolean }>(this.pool, MINE, [this.instanceId, afterSeq, this.writer.committedSeq, limit]);
        return list.map((r) => ({ seq: r.seq, eventId: r.event_id, exact: r.exact }));
    }

    /**
     * Claims captures of dead instances (and unowned ones). Runs between this instance's group
     * commits and takes positions under the events lock, so every own row at or below
     * `committedSeq` is committed and answered.
     */
    private takeOver(): Promise<void> {
        return this.writer.exclusive(async () => {
            const last = await transaction(this.pool, async (client) => {
                const claimed = (await client.query<{ seq: number }>(CLAIM, [this.instanceId, this.claims.settled(), TAKEOVER_BATCH, this.claims.deadAfterS])).rows.map((r) => r.seq);
                if (claimed.length === 0) return 0;
                const first = await takePositions(client, claimed.length);
                await client.query(
                    'UPDATE forward_backlog f SET seq = m.new, owner = $1 FROM unnest($2::bigint[], $3::bigint[]) AS m(old, new) WHERE f.seq = m.old',
                    [this.instanceId, claimed, claimed.map((_, i) => first + i)],
                );
                return first + claimed.length - 1;
            });
            this.writer.committedSeq = Math.max(this.writer.committedSeq, last);
        });
    }
}
