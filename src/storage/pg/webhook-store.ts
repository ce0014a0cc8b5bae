import type pg from 'pg';
import type { Webhook } from '../types.js';
import type { WebhookStore } from '../webhook-store.js';
import { WEBHOOKS_CHANNEL } from './keys.js';
import { storeError } from './pool.js';
import { guarded } from './pool.js';

/** Table of PgWebhookStore; the migration runs it (idempotent). */
export const WEBHOOK_DDL: string[] = ['CREATE TABLE IF NOT EXISTS webhooks (id text PRIMARY KEY, data text NOT NULL, updated_at bigint)'];

/**
 * The advisory lock key pair of `exclusive` (two-int form, so it never meets a one-bigint lock key):
 * 0x77686477 is "whdw".
 */
export const WEBHOOK_LOCK: readonly [number, number] = [0x77686477, 1];

/**
 * Webhooks as rows of one shared table, every instance reading and writing the same rows. A write
 * never replaces a newer version (`updatedAt`), as in the key-value store where the newest wins.
 */
export class PgWebhookStore implements WebhookStore {
    /** `notices`: subscribes to a LISTEN channel (the live feed's connection listens to it). */
    constructor(private readonly pool: pg.Pool, private readonly notices?: (channel: string, listener: () => void) => () => void) {}

    onChange(listener: () => void): () => void {
        return this.notices ? this.notices(WEBHOOKS_CHANNEL, listener) : () => undefined;
    }

    async list(): Promise<Webhook[]> {
        const { rows } = await guarded(() => this.pool.query<{ data: string }>('SELECT data FROM webhooks ORDER BY id'));
        return rows.map((row) => JSON.parse(row.data) as Webhook);
    }

    async get(id: string): Promise<Webhook | undefined> {
        const { rows } = await guarded(() => this.pool.query<{ data: string }>('SELECT data FROM webhooks WHERE id = $1', [id]));
        return rows[0] ? (JSON.parse(rows[0].data) as Webhook) : undefined;
    }

    create(webhook: Webhook): Promise<void> {
        return this.write(webhook);
    }

    update(webhook: Webhook): Promise<void> {
        return this.write(webhook);
    }

    async delete(id: string): Promise<void> {
        // The notice goes out with the commit, so no instance hears of a change before it can read it.
        await guarded(() => this.pool.query(`WITH gone AS (DELETE FROM webhooks WHERE id = $1 RETURNING id) SELECT pg_notify('${WEBHOOKS_CHANNEL}', id) FROM gone`, [id]));
    }

    /**
     * Runs `fn` holding a session advisory lock on a connection of its own, so one instance at a time
     * runs it. `fn` uses the pool's other connections: the pool needs at least two.
     */
    async exclusive<T>(fn: () => Promise<T>): Promise<T> {
        const client = await guarded(() => this.pool.connect());
        // A connection that failed while held is destroyed on release (its lock goes with its session).
        let broken: Error | undefined;
        const onError = (error: Error): void => void (broken = error);
        const own = async (sql: string, values?: unknown[]): Promise<void> => {
            try {
                await client.query(sql, values);
            } catch (error) {
                broken = error instanceof Error ? error : new Error(String(error));
                throw storeError(error);
            }
        };
        client.on('error', onError);
        try {
            // Waiting for another instance's section may take longer than a statement timeout allows.
            await own('SET statement_timeout = 0');
            await own('SELECT pg_advisory_lock($1, $2)', [...WEBHOOK_LOCK]);
            try {
                return await fn();
            } finally {
                await own('SELECT pg_advisory_unlock($1, $2)', [...WEBHOOK_LOCK]).catch(() => undefined);
                await own('RESET statement_timeout').catch(() => undefined);
            }
        } finally {
            client.off('error', onError);
            client.release(broken);
        }
    }

    private async write(webhook: Webhook): Promise<void> {
        await guarded(() =>
            this.pool.query(
                `WITH written AS (INSERT INTO webhooks (id, data, updated_at) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at
                 WHERE webhooks.updated_at IS NULL OR excluded.updated_at IS NULL OR excluded.updated_at >= webhooks.updated_at
                 RETURNING id) SELECT pg_notify('${WEBHOOKS_CHANNEL}', id) FROM written`,
                [webhook.id, JSON.stringify(webhook), webhook.updatedAt ?? null],
            ),
        );
    }
}
