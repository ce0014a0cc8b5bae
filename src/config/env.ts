import { isIP } from 'node:net';
import { parseAllowlistEntry } from '../lib/cidr.js';
import { ConfigError } from '../errors.js';

/**
 * The environment variables the service reads, in one table: field → variable(s) → default.
 * Nothing else in the code base reads process.env.
 */
export interface EnvConfig {
    /** Listening port. */
    port: number;
    /**
     * Address to listen on (LISTEN_HOST). Unset: the platform and a service with an authKey listen
     * on every interface; a laptop without a key on 127.0.0.1 only (see compose.ts).
     */
    listenHost: string | undefined;
    /** Root of the embedded local storage. */
    storageDir: string;
    /** Public base URL for detailUrl, nextPageUrl and /info endpoints; unset means http://localhost:<listening port>. */
    publicBaseUrl: string | undefined;
    /** X-Forwarded-For hops to trust; 0 trusts none (the socket address is the client). */
    trustProxyHops: number;
    /** Operator-only exemptions from the SSRF guard (IPs/CIDRs). */
    ssrfAllowlist: string[];
    /** Running on the Apify platform. */
    onPlatform: boolean;
    /** Platform only: names the storages shared by every run of this actor (or task), so URLs and history outlive a run. */
    storageScope: string;
    /** Operator override of the per-webhook ingest limit (benchmarks); undefined keeps 10000/min. */
    ingestLimitPerMinute: number | undefined;
    /**
     * Commit durability of the local store. `normal` (default, SQLite's recommendation for WAL) skips
     * the fsync at commit: an answered event survives a crash or SIGKILL of the process, but a power
     * loss or kernel crash can lose the last commits. `full` fsyncs every group commit before its
     * senders are answered, so it also survives power loss, at a measured ingest cost.
     */
    storageSync: StorageSync;
    /** Raw JSON of the `INPUT` override, if any. */
    inputOverride: string | undefined;
    /** The container's memory in MB (ACTOR_MEMORY_MBYTES, 1024 when unset): the memory budget derives from it. */
    memoryMbytes: number;
    /** Base of the total deadline of each Apify API call, ms (APIFY_CALL_DEADLINE_MS; 30,000; see storage/apify/deadline.ts). */
    apifyCallDeadlineMs: number;
    /**
     * PostgreSQL connection string (DATABASE_URL): several instances share one store. Wins over the
     * `databaseUrl` input. Holds a password: never logged or shown.
     */
    databaseUrl: string | undefined;
}

/** The durability modes of STORAGE_SYNC. */
export type StorageSync = 'full' | 'normal';

type Env = Record<string, string | undefined>;

const first = (env: Env, names: string[]): string | undefined => {
    for (const name of names) {
        const value = env[name];
        if (value !== undefined && value !== '') return value;
    }
    return undefined;
};

/** Reads the env table once. */
export function readEnv(env: Env = process.env): EnvConfig {
    const port = Number(first(env, ['ACTOR_WEB_SERVER_PORT', 'APIFY_CONTAINER_PORT']) ?? 8080);
    const onPlatform = env.APIFY_IS_AT_HOME === '1' || env.APIFY_IS_AT_HOME === 'true';
    const trustProxy = env.TRUST_PROXY;
    const trustProxyHops = trustProxy !== undefined && trustProxy !== '' ? Number(trustProxy) : onPlatform ? 1 : 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`ACTOR_WEB_SERVER_PORT: not a port number`);
    if (env.INGEST_RATE_LIMIT_PER_MINUTE && !(Number(env.INGEST_RATE_LIMIT_PER_MINUTE) >= 0)) throw new ConfigError('INGEST_RATE_LIMIT_PER_MINUTE: must be a number, 0 for no limit');
    if (!Number.isInteger(trustProxyHops) || trustProxyHops < 0) throw new ConfigError('TRUST_PROXY: must be a whole number of hops');
    const listenHost = first(env, ['LISTEN_HOST'])?.trim();
    if (listenHost !== undefined && isIP(listenHost) === 0 && !/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(listenHost)) throw new ConfigError('LISTEN_HOST: must be an IP address (0.0.0.0 for every interface) or a host name');
    const storageSync = (env.STORAGE_SYNC || 'normal').toLowerCase();
    if (storageSync !== 'full' && storageSync !== 'normal') throw new ConfigError('STORAGE_SYNC: must be full or normal');
    const publicBaseUrl = first(env, ['ACTOR_STANDBY_URL', 'ACTOR_WEB_SERVER_URL'])?.replace(/\/+$/, '');
    const ssrfAllowlist = (env.SSRF_ALLOWLIST ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const badCidr = ssrfAllowlist.find((entry) => {
        try {
            parseAllowlistEntry(entry);
            return false;
        } catch {
            return true;
        }
    });
    const memoryMbytes = Number(env.ACTOR_MEMORY_MBYTES || 1024);
    if (!(memoryMbytes > 0)) throw new ConfigError('ACTOR_MEMORY_MBYTES: must be a positive number of MB');
    if (badCidr !== undefined) throw new ConfigError(`SSRF_ALLOWLIST: "${badCidr}" is not an IP address or CIDR block`);
    return {
        port,
        listenHost,
        storageDir: first(env, ['CRAWLEE_STORAGE_DIR', 'APIFY_LOCAL_STORAGE_DIR']) ?? './storage',
        publicBaseUrl,
        trustProxyHops,
        ssrfAllowlist,
        onPlatform,
        storageScope: env.ACTOR_TASK_ID ? `task-${env.ACTOR_TASK_ID}` : `actor-${env.ACTOR_ID ?? 'local'}`,
        ingestLimitPerMinute: env.INGEST_RATE_LIMIT_PER_MINUTE ? Number(env.INGEST_RATE_LIMIT_PER_MINUTE) : undefined,
        storageSync,
        inputOverride: env.INPUT,
        memoryMbytes,
        apifyCallDeadlineMs: Number(env.APIFY_CALL_DEADLINE_MS) > 0 ? Number(env.APIFY_CALL_DEADLINE_MS) : 30_000,
        databaseUrl: first(env, ['DATABASE_URL']),
    };
}
