import type pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { sweepPartialBlobs } from './blob-store.js';
import { rows, transaction } from './pool.js';

/** How often an instance says it is alive. */
const HEARTBEAT_MS = 2000;

/** An instance whose last beat is older than this is dead: others take over its work. */
const DEAD_AFTER_S = 10;

/**
 * SQL condition on `owner`: $me may claim the row. Unowned rows (an instance that closed gives its
 * rows up) always; rows of instances that stopped beating only when $settled (parameter n + 1) is
 * true: this instance has itself beaten without a miss for as long as the dead time. After an
 * outage of the database every instance's last beat is old, and the first to come back must not
 * take the others' work before they had the time to beat again. Both branches use the
 * (owner, seq) index: the rows of live instances are never scanned.
 */
export const claimableBy = (n: number): string =>
    `(owner IS NULL OR owner IN (SELECT id FROM instances WHERE $${n + 1}::boolean AND id <> $${n} AND seen_at < now() - interval '${DEAD_AFTER_S} seconds'))`;

// Rows of instances silent for an hour that own nothing any more: a killed process never deletes its own.
const FORGET_DEAD = `DELETE FROM instances i WHERE seen_at < now() - interval '1 hour'
    AND NOT EXISTS (SELECT 1 FROM outbox WHERE owner = i.id) AND NOT EXISTS (SELECT 1 FROM forward_backlog WHERE owner = i.id)`;

/**
 * This instance's row in `instances`, refreshed every 2 s. Its exports and forwards stay its own
 * while it beats; 10 s after the last beat another instance takes them over. A failed beat is only
 * logged: the health probe reports the database.
 */
export class Heartbeat {
    private timer: NodeJS.Timeout | undefined;
    /** Since when every beat succeeded (local clock), undefined after a miss. */
    private beatingSince: number | undefined;
    private lastBeat = 0;
    /** Whether partial blobs were swept since the start. */
    private swept = false;

    constructor(private readonly pool: pg.Pool, private readonly instanceId: string, private readonly log: Logger) {}

    /** Registers the instance and starts beating. */
    async start(): Promise<void> {
        await this.beat();
        this.timer = setInterval(() => {
            this.beat().catch((error: unknown) => {
                this.beatingSince = undefined;
                this.log.warn('instance heartbeat failed', { error: String(error) });
            });
        }, HEARTBEAT_MS);
        this.timer.unref();
    }

    /** Stops beating, gives up this instance's exports and forwards and leaves, so other instances take them at once. */
    async stop(): Promise<void> {
        clearInterval(this.timer);
        this.timer = undefined;
        try {
            await transaction(this.pool, async (client) => {
                for (const table of ['outbox', 'forward_backlog']) await client.query(`UPDATE ${table} SET owner = NULL WHERE owner = $1`, [this.instanceId]);
                await client.query('DELETE FROM instances WHERE id = $1', [this.instanceId]);
            });
        } catch (error) {
            this.log.warn('could not deregister the instance', { error: String(error) });
        }
    }

    /** Deletes the partial blobs of instances that stopped beating (and any a day old); returns how many. */
    async sweepBlobs(): Promise<number> {
        const swept = await sweepPartialBlobs(this.pool, this.instanceId, DEAD_AFTER_S);
        if (swept > 0) this.log.info('swept payloads that stopped instances left half written', { blobs: swept });
        return swept;
    }

    /** Whether this instance has beaten without a miss for the dead time: it may take over silent instances' work. */
    settled(): boolean {
        return this.beatingSince !== undefined && Date.now() - this.beatingSince >= DEAD_AFTER_S * 1000;
    }

    private async beat(): Promise<void> {
        await rows(this.pool, 'INSERT INTO instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [this.instanceId]);
        // Now and then (about once a minute), forget instances long dead.
        const nowAndThen = Math.random() < HEARTBEAT_MS / 60_000;
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
        if (now - this.lastBeat > 2.5 * HEARTBEAT_MS) this.beatingSince = now;
        this.beatingSince ??= now;
        this.lastBeat = now;
    }
}
