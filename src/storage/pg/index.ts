import type { Logger } from '../../lib/log.js';
import type { Storage } from '../roles.js';
import { createPool } from './pool.js';
import { migrate } from './schema.js';

/** Options of the PostgreSQL backend. */
export interface PgStorageOptions {
    /** Connection string (DATABASE_URL or the secret input `databaseUrl`). */
    url: string;
    /** This instance's id: it owns the exports and forwards of what it captures. */
    instanceId: string;
    log: Logger;
    /** Connections in the pool (default 10). */
    poolSize?: number;
    /** Per statement time limit (default 30 s). */
    statementTimeoutMs?: number;
}

const notYet = (what: string) => (): never => {
    throw new Error(`PostgreSQL backend: ${what} is not implemented yet`);
};

/** Opens the PostgreSQL backend: pool, schema migration, and every role of the Storage bundle. */
export async function openPgStorage(options: PgStorageOptions): Promise<Storage> {
    const pool = createPool(options);
    try {
        await migrate(pool);
    } catch (error) {
        await pool.end().catch(() => undefined);
        throw error;
    }
    const rejectNotYet = (what: string) => (): Promise<never> => Promise.reject(new Error(`PostgreSQL backend: ${what} is not implemented yet`));
    return {
        backend: 'postgres',
        events: {
            append: rejectNotYet('append'),
            importEvents: rejectNotYet('importEvents'),
            getEntry: rejectNotYet('getEntry'),
            webhookOf: rejectNotYet('webhookOf'),
            idAtTimestamp: rejectNotYet('idAtTimestamp'),
            query: rejectNotYet('query'),
            recordReplay: rejectNotYet('recordReplay'),
            deleteEvents: rejectNotYet('deleteEvents'),
            addTombstones: rejectNotYet('addTombstones'),
        },
        bodies: { getBody: rejectNotYet('getBody') },
        outbox: { readOutbox: rejectNotYet('readOutbox'), getExportRecord: rejectNotYet('getExportRecord'), markExported: rejectNotYet('markExported') },
        forwards: { readForwardBacklog: rejectNotYet('readForwardBacklog'), forwardSource: rejectNotYet('forwardSource'), recordForwards: rejectNotYet('recordForwards') },
        feed: { entriesAfter: rejectNotYet('entriesAfter'), onForeignEvents: notYet('onForeignEvents') },
        meta: { getMeta: rejectNotYet('getMeta'), setMeta: rejectNotYet('setMeta') },
        health: {
            backend: 'postgres',
            stats: rejectNotYet('stats'),
            queryStats: () => undefined,
            healthy: notYet('healthy'),
            problem: notYet('problem'),
            reclaimSpace: rejectNotYet('reclaimSpace'),
        },
        close: () => pool.end(),
    };
}
