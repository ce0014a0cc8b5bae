import pg from 'pg';

/** The server process behind a pooled connection (what pg_cancel_backend takes). */
export const pidOf = (client: pg.PoolClient): number => (client as unknown as { processID: number }).processID;

/** Cancels the statement running on `client` from a connection of its own (the pool may be full). */
export async function cancelBackend(pool: pg.Pool, client: pg.PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: number }).processID;
    if (typeof pid !== 'number') return;
    const canceller = new pg.Client({ ...pool.options, statement_timeout: 2000 });
    canceller.on('error', () => undefined);
    try {
        await canceller.connect();
        await canceller.query('SELECT pg_cancel_backend($1)', [pid]);
    } catch {
        // The statement then ends at its time limit.
    } finally {
        await canceller.end().catch(() => undefined);
    }
}
