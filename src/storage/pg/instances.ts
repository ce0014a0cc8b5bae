import type pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { sweepPartialBlobs } from './blob-store.js';
import { rows, transaction } from './pool.js';

/** How an instance tells it is alive, and when the others count it dead. */
export interface HeartbeatTiming {
    /** How often an instance says it is alive (2 s). */
    everyMs: number;
    /** An instance whose last beat is older than this is dead: others take over its work (10 s). */
    deadAfterMs: number;
}

/** The timing of every real instance; tests shorten it (PgStorageOptions.heartbeat) to wait seconds, not tens of them. */
export const HEARTBEAT: HeartbeatTiming = { everyMs: 2000, deadAfterMs: 10_000 };

/** What a claim needs to know of this instance's heartbeat. */
export interface ClaimRule {
    /** Whether this instance may take over the work of instances that stopped beating. */
    settled(): boolean;
    /** The dead time, in seconds: the parameter `claimableBy` names. */
    readonly deadAfterS: number;
}

/**
 * SQL condition on `owner`: $me may claim the row. Unowned rows (an instance that closed gives its
 * rows up) always; rows of instances silent for $dead seconds only when $settled is true: this
 * instance has itself beaten without a miss for as long as the dead time. After an outage of the
 * database every instance's last beat is old, and the first to come back must not take the others'
 * work before they had the time to beat again. Both branches use the (owner, seq) index: the rows
 * of live instances are never scanned. The arguments are the parameter numbers.
 */
export const claimableBy = (me: number, settled: number, dead: number): string =>
    `(owner IS NULL OR owner IN (SELECT id FROM instances WHERE $${settled}::boolean AND id <> $${me} AND seen_at < now() - make_interval(secs => $${dead}::float8)))`;

// Rows of instances silent for an hour that own nothing any more: a killed process never deletes its own.
const FORGET_DEAD = `DELETE FROM instances i WHERE seen_at < now() - interval '1 hour'
    AND NOT EXISTS (SELECT 1 FROM outbox WHERE owner = i.id) AND NOT EXISTS (SELECT 1 FROM forward_backlog WHERE owner = i.id)`;

/**
 * This instance's row in `instances`, refreshed every 2 s (HEARTBEAT). Its exports and forwards stay
 * its own while it beats; 10 s after the last beat another instance takes them over. A failed beat
 * is only logged: the health probe reports the database.
 */
export class Heartbeat implements ClaimRule {
    private timer: NodeJS.Timeout | undefined;
    /** Since when every beat succeeded (local clock), undefined after a miss. */
    private beatingSince: number | undefined;
    private lastBeat = 0;
    /** Whether partial blobs were swept since the start. */
    private swept = false;

    constructor(
        private readonly pool: pg.Pool,
        private readonly instanceId: string,
        private readonly log: Logger,
        private readonly timing: HeartbeatTiming = HEARTBEAT,
    ) {}

    get deadAfterS(): number {
        return this.timing.deadAfterMs / 1000;
    }

    /** Registers the instance and starts beating. */
    async start(): Promise<void> {
        await this.beat();
        this.timer = setInterval(() => {
            this.beat().catch((error: unknown) => {
                this.beatingSince = undefined;
                this.log.warn('instance heartbeat failed', { error: String(error) });
            });
        }, this.timing.everyMs);
        this.timer.unref();
    }

    /** Stops beating, gives up this instance's exports and forwards and leaves, so other instances take them at once. */
    async stop(): Promise<void> {
        clearInterval(this.timer);
        this.timer = undefined;
        try {
            await transaction(this.pool, async (client) => {
                for (const table of ['outbox', 'forward_backlog', 'replay_jobs']) await client.query(`UPDATE ${table} SET owner = NULL WHERE owner = $1`, [this.instanceId]);
                await client.query('DELETE FROM instances WHERE id = $1', [this.instanceId]);
            });
        } catch (error) {
            this.log.warn('could not deregister the instance', { error: String(error) });
        }
    }

    /** Deletes the partial blobs of instances that stopped beating (and any a day old); returns how many. */
    async sweepBlobs(): Promise<number> {
        const swept = await sweepPartialBlobs(this.pool, this.instanceId, this.deadAfterS);
        if (swept > 0) this.log.info('swept payloads that stopped instances left half written', { blobs: swept });
        return swept;
    }

    /** Whether this instance has beaten without a miss for the dead time: it may take over silent instances' work. */
    settled(): boolean {
        return this.beatingSince !== undefined && Date.now() - this.beatingSince >= this.timing.deadAfterMs;
    }

    private async beat(): Promise<void> {
        await rows(this.pool, 'INSERT INTO instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [this.instanceId]);
        // Now and then (about once a minute), forget instances long dead.
        const nowAndThen = Math.random() < this.timing.everyMs / 60_000;
        if (nowAndThen) await rows(this.pool, FORGET_DEAD);
        // Sweep the uploads dead instances left unfinished: once settled (after an outage every beat
        // is old), first at once (a restart after a crash cleans up after itself), then now and then.
        // A failed sweep is not a missed beat: it is tried again.
        if (this.settled() && (!this.swept || nowAndThen)) {
            this.swept = true;
            await this.sweepBlobs().catch((error: unknown) => {
                this.swept = false;
                this.log.warn('sweeping half-written payloads failed', { error: String(error) });
            });
        }
        const now = Date.now();
        // A beat long after the previous one (the process stalled) counts as a miss too.
        if (now - this.lastBeat > 2.5 * this.timing.everyMs) this.beatingSince = now;
        this.beatingSince ??= now;
        this.lastBeat = now;
    }
}
