import type pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { LOCKS } from './keys.js';
import { isConnectionError, prepared, transaction } from './pool.js';
import { INDEXABLE } from './query-indexes.js';

/**
 * The inbox. A group commit inserts its events and bodies into `events_inbox` and `bodies_inbox`,
 * where only positions and ids are indexed; the query indexes of `events` and `bodies` (15 b-trees
 * and 8 trigram GIN: ~0.45 ms per event, which made the commit the limit of ingest) are paid here,
 * after the senders have their answers. Reads go through the views `events_all` and `bodies_all`,
 * where each event is exactly once whichever table holds it, so nothing a query, the live feed or
 * the export sees changes when a row moves; only how fast an unindexed row is found does.
 *
 * Capture comes first. While this instance's commits are crowded (appends queue behind the running
 * commit: the database is the limit of ingest), the mover carries a trickle, and the rest once the
 * crowd is gone. The trickle never lets the inbox pass INBOX_CAP: there the mover carries at full
 * speed whatever the crowd, so a sustained flood slows to the indexed rate rather than leave
 * queries scanning an ever larger unindexed tail.
 *
 * A row with a text longer than an index entry holds (a 3 KB URL: query-indexes.ts INDEXABLE) is
 * never carried: it stays here, found by every read, and the rows after it go on.
 */

/** Rows carried per statement at full speed, and per TRICKLE_EVERY_MS while commits are crowded. */
const MOVE_BATCH = 1000;
/** Body bytes carried per statement (the first row goes whatever its size): a group commit's bound. */
const MOVE_BYTES = 8 * 1024 * 1024;
const TRICKLE = 200;
const TRICKLE_EVERY_MS = 1000;
/** Past this many rows waiting, the mover carries at full speed even while commits are crowded. */
const INBOX_CAP = 50_000;
/** After a commit here, how long the mover waits for more rows to carry together. */
const SETTLE_MS = 50;
/** How often an idle mover looks for rows other instances committed. */
const POLL_MS = 500;
/** The wait after a move failed with the database away (the health probe reports it), and after a statement error. */
const RETRY_MS = 2000;
const RETRY_SMALLER_MS = 100;

// One statement: the oldest rows, within a count and a byte bound, leave the inbox and reach events
// (their bodies bodies) in the same commit. ON CONFLICT: an id already in events (two imports racing
// a move) is dropped with its body.
// Only rows whose texts fit the indexes' entries (INDEXABLE): a longer one stays here for good.
const MOVE = prepared('whd_inbox_move', `WITH pick AS (SELECT seq, sum(CASE WHEN body_kind = 'offloaded' THEN 0 ELSE size END) OVER (ORDER BY seq) AS upto
        FROM events_inbox WHERE ${INDEXABLE} ORDER BY seq LIMIT $1),
    m AS (DELETE FROM events_inbox WHERE seq IN (SELECT seq FROM pick WHERE upto <= $2 OR seq = (SELECT min(seq) FROM pick)) RETURNING *),
    b AS (DELETE FROM bodies_inbox WHERE seq IN (SELECT seq FROM m) RETURNING *),
    e AS (INSERT INTO events SELECT * FROM m ON CONFLICT DO NOTHING RETURNING seq),
    x AS (INSERT INTO bodies SELECT * FROM b WHERE seq IN (SELECT seq FROM e))
    SELECT (SELECT count(*) FROM m) AS n, (SELECT coalesce(max(seq) - min(seq) + 1, 0) FROM events_inbox WHERE ${INDEXABLE}) AS span`);

/** Carries inbox rows into the indexed tables, one mover at a time over every instance. */
export class InboxMover {
    private stopped = false;
    /** Positions the inbox spanned at the last move (at least the rows waiting then). */
    private waiting = 0;
    /** Rows per statement: halved after a failed move (down to one row), doubled back after each success. */
    private batch = MOVE_BATCH;
    /** Whether the last move failed (a streak is logged once, and once more when down to one row). */
    private failing = false;
    private readonly loop: Promise<void>;
    /** Ends the current wait: now, or after SETTLE_MS. */
    private wakeNow: (() => void) | undefined;
    private wakeSoon: (() => void) | undefined;

    constructor(
        private readonly pool: pg.Pool,
        private readonly log: Logger,
        /** Whether this instance's appends are queueing behind its commits. */
        private readonly crowded: () => boolean,
        private readonly cap = INBOX_CAP,
    ) {
        this.loop = this.run();
    }

    /** Whether the mover is holding back for crowded commits. */
    get trickling(): boolean {
        return this.crowded() && this.waiting < this.cap;
    }

    /** This instance committed rows: they are carried shortly (unless its commits are crowded). */
    committed(): void {
        if (!this.trickling) this.wakeSoon?.();
    }

    async stop(): Promise<void> {
        this.stopped = true;
        this.wakeNow?.();
        await this.loop;
    }

    private async run(): Promise<void> {
        while (!this.stopped) {
            let wait: number;
            try {
                const trickle = this.trickling;
                const limit = Math.min(this.batch, trickle ? TRICKLE : MOVE_BATCH);
                const n = await this.move(limit);
                this.batch = Math.min(MOVE_BATCH, this.batch * 2);
                this.failing = false;
                wait = trickle ? TRICKLE_EVERY_MS : n > 0 ? 0 : POLL_MS;
            } catch (error) {
                // A batch that fails (too slow for the statement time limit, or a row the indexed tables
                // refuse) is tried again smaller, down to one row, so the rows before a bad one still go;
                // the rows stay in the inbox meanwhile, and every read still sees them.
                const before = this.batch;
                this.batch = Math.max(1, Math.floor(before / 2));
                const away = isConnectionError(error);
                // Logged at the first failure of a streak and when it is down to one row, not at every retry.
                if ((!away && !this.failing) || (this.batch === 1 && before > 1)) this.log.warn('moving inbox rows to the indexed tables failed', { error: String(error), nextBatch: this.batch });
                this.failing = true;
                wait = away ? RETRY_MS : RETRY_SMALLER_MS;
            }
            if (wait > 0 && !this.stopped) await this.sleep(wait);
        }
    }

    /** One batch, unless another instance's mover (or a deletion) holds the inbox: then 0. */
    private move(limit: number): Promise<number> {
        return transaction(this.pool, async (client) => {
            const [lock] = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS got', [LOCKS.inbox])).rows;
            if (!lock?.got) return 0;
            const [row] = (await client.query<{ n: number; span: number }>({ ...MOVE, values: [limit, MOVE_BYTES] })).rows;
            this.waiting = Math.max(0, Number(row?.span ?? 0) - Number(row?.n ?? 0));
            return Number(row?.n ?? 0);
        });
    }

    private sleep(ms: number): Promise<void> {
        return new Promise<void>((resolve) => {
            let timer = setTimeout(done, ms);
            function done(): void {
                clearTimeout(timer);
                resolve();
            }
            this.wakeNow = done;
            this.wakeSoon = () => {
                this.wakeSoon = undefined;
                clearTimeout(timer);
                timer = setTimeout(done, SETTLE_MS);
            };
        }).finally(() => {
            this.wakeNow = undefined;
            this.wakeSoon = undefined;
        });
    }
}
