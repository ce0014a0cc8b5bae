import type pg from 'pg';
import type { Logger } from '../../lib/log.js';
import { rows } from './pool.js';

/** How often an instance says it is alive. */
const HEARTBEAT_MS = 2000;

/**
 * SQL condition on `owner`: the row belongs to no live instance other than $me (unowned, or its
 * owner has not said it is alive for 10 s), so $me may claim it. Parameter `$n` is $me.
 */
export const claimableBy = (n: number): string =>
    `(owner IS NULL OR (owner <> $${n} AND owner NOT IN (SELECT id FROM instances WHERE seen_at > now() - interval '10 seconds')))`;

/**
 * This instance's row in `instances`, refreshed every 2 s. Its exports and forwards stay its own
 * while it beats; 10 s after the last beat another instance takes them over. A failed beat is only
 * logged: the health probe reports the database.
 */
export class Heartbeat {
    private timer: NodeJS.Timeout | undefined;

    constructor(private readonly pool: pg.Pool, private readonly instanceId: string, private readonly log: Logger) {}

    /** Registers the instance and starts beating. */
    async start(): Promise<void> {
        await this.beat();
        this.timer = setInterval(() => {
            this.beat().catch((error: unknown) => this.log.warn('instance heartbeat failed', { error: String(error) }));
        }, HEARTBEAT_MS);
        this.timer.unref();
    }

    /** Stops beating and removes the row, so other instances take over what is left at once. */
    async stop(): Promise<void> {
        clearInterval(this.timer);
        this.timer = undefined;
        await rows(this.pool, 'DELETE FROM instances WHERE id = $1', [this.instanceId]).catch((error: unknown) =>
            this.log.warn('could not deregister the instance', { error: String(error) }),
        );
    }

    private async beat(): Promise<void> {
        await rows(this.pool, 'INSERT INTO instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET seen_at = now()', [this.instanceId]);
    }
}
