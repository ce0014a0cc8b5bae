import type { Logger } from '../../lib/log.js';
import type { StoreStats } from '../event-store.js';
import type { Storage } from '../roles.js';
import { PgForwardBacklog } from './backlog.js';
import { PgBlobStore } from './blob-store.js';
import { EventChanges } from './changes.js';
import { EventReads } from './events.js';
import { PgFeed } from './feed.js';
import { HealthProbe } from './health.js';
import { InboxMover } from './inbox.js';
import { Heartbeat, HEARTBEAT, type HeartbeatTiming } from './instances.js';
import { PgMeta, pgDurability, pgStats } from './meta.js';
import { PgOutbox } from './outbox.js';
import { createPool, isConnectionError, rows } from './pool.js';
import { runPgQuery } from './query/index.js';
import { PgReplayJobStore } from './replay-jobs.js';
import { QueryGate, type PgQueryLimits } from './query/gate.js';
import { migrate } from './schema.js';
import { PgWebhookStore } from './webhook-store.js';
import { GroupWriter } from './writer.js';

/** Options of the PostgreSQL backend. */
export interface PgStorageOptions {
    /** Connection string (DATABASE_URL or the secret input `databaseUrl`). */
    url: string;
    /** This instance's id, unique among running instances: it owns the exports and forwards of what it captures. */
    instanceId: string;
    log: Logger;
    /** Connections in the pool (default 10). */
    poolSize?: number;
    /** Per statement time limit (default 30 s). */
    statementTimeoutMs?: number;
    /** Bounds of GET /logs queries (the `queryPool` start options): 503 beyond maxInFlight, 504 past timeoutMs. */
    queryLimits?: PgQueryLimits;
    /** Rows the inbox may hold before its mover ignores crowded commits (default INBOX_CAP; tests set less). */
    inboxCap?: number;
    /** How often this instance beats and when a silent one counts as dead (default HEARTBEAT; tests set less). */
    heartbeat?: Partial<HeartbeatTiming>;
    /** How often the health probe runs when no call tells (default PROBE_MS, health.ts; tests set more). */
    probeMs?: number;
}

/**
 * Opens the PostgreSQL backend: the pool, the schema (created or migrated under an advisory lock),
 * the instance heartbeat, the LISTEN feed, the health probe, and every role of the Storage bundle. Rejects with
 * StoreUnavailableError when the database cannot be reached.
 */
export async function openPgStorage(options: PgStorageOptions): Promise<Storage & Required<Pick<Storage, 'webhooks' | 'blobs'>>> {
    const { instanceId, log } = options;
    const pool = createPool(options);
    // Group commits, the heartbeat and the probe on connections of their own: a burst of slow queries
    // holding the main pool never makes ingest wait, the instance look dead, or the probe report the
    // database away.
    const writePool = createPool({ ...options, poolSize: 2 });
    const heartbeat = new Heartbeat(writePool, instanceId, log, { ...HEARTBEAT, ...options.heartbeat });
    const feed = new PgFeed(pool, instanceId, log);
    let durability: StoreStats['durability'];
    let ownBacklogEnd: number;
    try {
        await migrate(pool);
        await heartbeat.start();
        durability = await pgDurability(pool);
        // What this instance id owned before (a restart with the same id) is forwarded as its own.
        ownBacklogEnd = (await rows<{ seq: number | null }>(pool, 'SELECT max(seq) AS seq FROM forward_backlog WHERE owner = $1', [instanceId]))[0]?.seq ?? 0;
        await feed.start();
    } catch (error) {
        await feed.close();
        await heartbeat.stop();
        await Promise.all([pool.end(), writePool.end()]).catch(() => undefined);
        throw error;
    }
    const health = new HealthProbe(writePool, log, options.probeMs);
    const writer = new GroupWriter(writePool, instanceId, log, ownBacklogEnd, (error, startedAt) => health.failed(error, startedAt));
    const mover = new InboxMover(pool, log, () => writer.crowded(), options.inboxCap);
    // A committed group reached the database: /ready follows at once, not at the probe's next turn.
    writer.onCommitted = (startedAt) => {
        health.succeeded(startedAt);
        mover.committed();
    };
    const reads = new EventReads(pool);
    const changes = new EventChanges(pool, writer, instanceId);
    const outbox = new PgOutbox(pool, instanceId, heartbeat);
    const backlog = new PgForwardBacklog(pool, instanceId, writer, heartbeat);
    const meta = new PgMeta(pool);
    // Queries hold at most half the main pool, so reads, claims and the feed always find a connection.
    const queries = new QueryGate((q, signal, timeoutMs) => runPgQuery(pool, q, signal, timeoutMs), { maxRunning: Math.max(1, Math.floor((options.poolSize ?? 10) / 2)), ...options.queryLimits });
    // Every call that lost its connection marks the store unhealthy at once; one that answered has
    // the probe run at once (it may have answered without a statement).
    const watch = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
        async (...args: A): Promise<R> => {
            const started = performance.now();
            try {
                const result = await fn(...args);
                health.answered();
                return result;
            } catch (error) {
                if (isConnectionError(error)) health.failed(error, started);
                throw error;
            }
        };
    let closing: Promise<void> | undefined;
    return {
        backend: 'postgres',
        events: {
            append: (event) => writer.append(event),
            importEvents: watch((events) => changes.importEvents(events)),
            getEntry: watch((id) => reads.getEntry(id)),
            webhookOf: watch((id) => reads.webhookOf(id)),
            idAtTimestamp: watch((webhookId, ts) => reads.idAtTimestamp(webhookId, ts)),
            query: watch((q, signal) => queries.run(q, signal)),
            recordReplay: watch((eventId, record) => changes.recordReplay(eventId, record)),
            deleteEvents: watch((ids) => changes.deleteEvents(ids)),
            addTombstones: watch((ids) => changes.addTombstones(ids)),
        },
        bodies: { getBody: watch((id) => reads.getBody(id)) },
        outbox: {
            readOutbox: watch((limit, maxBytes, afterSeq) => outbox.readOutbox(limit, maxBytes, afterSeq)),
            getExportRecord: watch((id) => reads.getExportRecord(id)),
            markExported: watch((seq, sinkPosition) => outbox.markExported(seq, sinkPosition)),
        },
        forwards: {
            readForwardBacklog: watch((afterSeq, limit) => backlog.readForwardBacklog(afterSeq, limit)),
            forwardSource: watch((id) => reads.forwardSource(id)),
            recordForwards: watch((list) => changes.recordForwards(list)),
        },
        feed: {
            entriesAfter: watch((id, limit, bodyLimit) => reads.entriesAfter(id, limit, bodyLimit)),
            onForeignEvents: (listener) => feed.onForeignEvents(listener),
            // Several instances commit: the feed is the one order every instance streams in.
            ordersLive: true,
            onCommitted: (listener) => feed.onCommitted(listener),
            caughtUp: () => feed.caughtUp(),
            entriesOf: watch((ids, bodyLimit) => reads.entriesOf(ids, bodyLimit)),
        },
        meta: { getMeta: watch((key) => meta.getMeta(key)), setMeta: watch((key, value) => meta.setMeta(key, value)) },
        health: {
            backend: 'postgres',
            stats: watch(() => pgStats(pool, durability)),
            queryStats: () => ({ ...queries.stats }),
            healthy: () => health.healthy(),
            problem: () => health.problem(),
            // PostgreSQL's autovacuum reuses and returns space by itself: nothing to do here.
            reclaimSpace: () => Promise.resolve(0),
        },
        replayJobs: new PgReplayJobStore(pool, instanceId, heartbeat),
        webhooks: new PgWebhookStore(pool, (channel, listener) => feed.onNotice(channel, listener)),
        blobs: new PgBlobStore(pool, instanceId),
        close: () =>
            (closing ??= (async () => {
                await writer.close();
                await mover.stop();
                await feed.close();
                health.stop();
                await heartbeat.stop();
                await Promise.all([pool.end(), writePool.end()]);
            })()),
    };
}
