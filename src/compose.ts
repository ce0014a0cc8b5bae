import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { makeConfig, parseInput, readEnv, unknownInputFields, type ConfigOverrides } from './config/index.js';
import type { AppDeps } from './routes/deps.js';
import type { Readiness } from './storage/readiness.js';
import { ConfigError } from './errors.js';
import { createApp } from './app.js';
import { guardServer, HTTP_SERVER_OPTIONS } from './http/server-edges.js';
import { systemClock, type Clock } from './lib/clock.js';
import { randomIds, type IdGenerator } from './lib/ids.js';
import { parseIp } from './lib/ip.js';
import { consoleLogger, type Logger } from './lib/log.js';
import { Metrics } from './lib/metrics.js';
import { LIVE_DEFAULTS, LiveHub, type LiveOptions } from './live/hub.js';
import { createForwarder } from './delivery/create-forwarder.js';
import { createReplayJobs } from './delivery/replay-jobs/create-replay-jobs.js';
import { urlProblem } from './delivery/ssrf-guard.js';
import { openActorStorage } from './storage/apify/actor-storage.js';
import { Deadlines } from './storage/apify/deadline.js';
import { DatasetExporter, EXPORT_IDLE_MS } from './storage/apify/dataset-export.js';
import { SINK_POSITION_KEY } from './storage/meta-keys.js';
import { chooseDatabase, openStorage, type QueryPoolOptions } from './storage/open-storage.js';
import { loadInput } from './config/load-input.js';
import { WebhookManager } from './webhooks/manager.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** How to start the service; everything is optional and defaults to the real thing. */
export interface StartOptions {
    /** Run input; when absent it is read with Actor.getInput(). The `INPUT` env var overrides either. */
    input?: unknown;
    /** Environment to read instead of process.env. */
    env?: Record<string, string | undefined>;
    /** Port to listen on instead of the configured one (0 for any). */
    port?: number;
    clock?: Clock;
    ids?: IdGenerator;
    log?: Logger;
    /** Test hooks for thresholds and timings that are otherwise fixed (Config: `timings` holds the service's own). */
    overrides?: ConfigOverrides;
    /** Query workers (default 2). */
    queryWorkers?: number;
    /** Bounds of the query pool (queue, time limit); tests shorten them. */
    queryPool?: QueryPoolOptions;
    /** Live-feed limits (heartbeat interval, client cap, buffer); the spec's values unless set. */
    live?: Partial<LiveOptions>;
    /** Randomness of `failureRate` fault injection (tests make it deterministic). */
    random?: () => number;
}

/** A running service. */
export interface Service {
    server: Server;
    deps: AppDeps;
    /** Base URL the server listens on (loopback unless LISTEN_HOST names one address). */
    url: string;
    /** The address it listens on: `127.0.0.1` by default on a laptop without a key, `::` or `0.0.0.0` for every interface. */
    host: string;
    /**
     * Graceful stop: stop accepting, finish in-flight requests (up to `drainMs`), let forwards finish
     * (up to `forwardMs`; the rest stay in the backlog for the next start), flush the outbox, close
     * storage. Both default to the configured timings (Config.timings: drainMs, forwardStopMs).
     */
    stop(options?: { drainMs?: number; forwardMs?: number }): Promise<void>;
    /** The container is going away soon (platform `migrating`): keep capturing, export without pacing. */
    hurryExport(): void;
}

/** The one composition root: reads config, picks storage, builds services, listens. */
export async function startService(options: StartOptions = {}): Promise<Service> {
    const env = readEnv(options.env ?? process.env);
    const log = options.log ?? consoleLogger;
    const clock = options.clock ?? systemClock;
    const storageDir = resolve(env.storageDir);
    const deadlines = new Deadlines(env.apifyCallDeadlineMs);
    const actorStorage = await openActorStorage(env.onPlatform, env.storageScope, storageDir, log, clock, deadlines);
    const rawInput = await loadInput(actorStorage.readInput, options.input, env.inputOverride);
    const unknown = unknownInputFields(rawInput);
    if (unknown.length) log.warn(`Ignoring unknown input fields: ${unknown.join(', ')}`);
    const config = makeConfig(parseInput(rawInput), env, options.overrides);
    const forwardProblem = config.input.forwardUrl === undefined ? undefined : urlProblem(config.input.forwardUrl);
    if (forwardProblem !== undefined) throw new ConfigError(`Invalid input field "forwardUrl": ${forwardProblem}`);
    const { timings } = config;

    const storage = await openStorage({
        database: chooseDatabase(env.databaseUrl, config.input.databaseUrl),
        storageDir,
        sqlite: { queryWorkers: options.queryWorkers ?? 2, sync: env.storageSync, ...(options.queryPool ? { pool: options.queryPool } : {}) },
        actor: actorStorage,
        deadlines,
        onPlatform: env.onPlatform,
        timings,
        log,
    });
    const dataset = await actorStorage.openDataset(await storage.meta.getMeta(SINK_POSITION_KEY));
    const webhooks = new WebhookManager(storage.webhooks, clock, options.ids ?? randomIds, options.random);
    await webhooks.init(config.input.urlCount, config.input.retentionHours);
    // Where others change webhooks (storage.pollWebhooksMs): one listing per poll, and one read per
    // changed webhook; a store that tells of each change as it commits is followed too.
    const refreshFailed = (e: unknown): void => log.warn('webhook refresh failed', { error: String(e) });
    const webhookPoll = every(storage.pollWebhooksMs, () => void webhooks.refresh().catch(refreshFailed));
    const unfollowWebhooks = webhooks.follow(refreshFailed);

    let listeningPort = env.port;
    const metrics = new Metrics();
    const readiness: Readiness = { accepting: false };
    const baseUrl = (): string => env.publicBaseUrl ?? `http://localhost:${listeningPort}`;
    const live = new LiveHub(storage, baseUrl, log, { ...LIVE_DEFAULTS, resumeBatchBytes: config.memory.batchBytes, ...options.live });
    const { blobs, deletions } = storage;
    const forwarder = createForwarder({ config, backlog: storage.forwards, blobs, clock, log, metrics });
    // Where other instances add to the backlog (storage.forwardWakeMs), it is read even while this one captures nothing.
    const forwardPoll = forwarder ? every(storage.forwardWakeMs, () => forwarder.wake()) : undefined;
    // Jobs wait while a catch-up from the dataset runs: the captures it brings back would read as deleted.
    const mayRun = (): boolean => readiness.accepting && (readiness.catchUp === undefined || readiness.catchUp.done);
    const { jobs: replayJobs, runner: jobRunner } = createReplayJobs({ config, clock, log, metrics, storage, blobs, webhooks, baseUrl, mayRun });
    const deps: AppDeps = {
        config, clock, ids: options.ids ?? randomIds, storage, events: storage.events, blobs, webhooks, metrics, log, readiness,
        ...(deletions ? { deletions } : {}),
        ...(forwarder ? { forwarder } : {}),
        version: pkg.version,
        publish: (event) => live.publish(event),
        baseUrl,
        live,
        replayJobs,
    };
    const exporter = new DatasetExporter(dataset, storage, metrics, log, { blobs, baseUrl: deps.baseUrl, batchBytes: config.memory.exportBytes });
    exporter.start(EXPORT_IDLE_MS);
    const background = await storage.startBackground({ dataset, publish: (event) => live.publish(event), readiness });
    const cleanup = every(timings.cleanupMs, () => void webhooks.cleanup().catch((e: unknown) => log.warn('webhook cleanup failed', { error: String(e) })));

    // Slow senders are bounded (see SlowSenderTimeouts): the headers, the whole request, and, in the
    // ingest body reader, every pause. The check runs every second rather than Node's 30 s.
    const { headersMs, requestMs, checkIntervalMs } = config.timeouts;
    const server = createServer({ keepAliveTimeout: timings.keepAliveMs, headersTimeout: headersMs, requestTimeout: requestMs, connectionsCheckingInterval: checkIntervalMs, ...HTTP_SERVER_OPTIONS }, createApp(deps));
    guardServer(server, deps.ids);
    const listenHost = chooseListenHost(env.listenHost, env.onPlatform, Boolean(config.input.authKey));
    await new Promise<void>((resolveListen, reject) => {
        server.once('error', reject);
        const port = options.port ?? env.port;
        if (listenHost === undefined) server.listen(port, () => resolveListen());
        else server.listen(port, listenHost, () => resolveListen());
    });
    readiness.accepting = true;
    // Jobs a stopped or killed process left go on now.
    jobRunner.start();
    const { port, address: host } = server.address() as AddressInfo;
    listeningPort = port;
    if (!env.onPlatform && !config.input.authKey && !isLoopback(host)) {
        log.warn(`Listening on ${host} without an authKey: anyone who can reach this address can read, change and delete every capture. Set an authKey, or unset LISTEN_HOST to listen on 127.0.0.1 only.`);
    }

    let stopping: Promise<void> | undefined;
    const stop = (opts: { drainMs?: number; forwardMs?: number } = {}): Promise<void> => {
        stopping ??= (async () => {
            readiness.accepting = false;
            // Open event streams would hold the listener open until the drain deadline.
            live.close();
            // No job sends anything more; those in flight end (bounded) and the jobs wait for the next start.
            const jobsStopped = jobRunner.stop(opts.forwardMs ?? timings.forwardStopMs);
            clearInterval(cleanup);
            clearInterval(webhookPoll);
            unfollowWebhooks();
            const closed = new Promise<void>((r) => server.close(() => r()));
            // In-flight answers now carry Connection: close (see app.ts); keep-alive connections
            // that go idle in between are closed as they do.
            server.closeIdleConnections();
            const sweep = setInterval(() => server.closeIdleConnections(), timings.idleSweepMs);
            const timer = setTimeout(() => server.closeAllConnections(), opts.drainMs ?? timings.drainMs);
            await closed;
            clearInterval(sweep);
            clearTimeout(timer);
            clearInterval(forwardPoll);
            await forwarder?.stop(opts.forwardMs ?? timings.forwardStopMs);
            await jobsStopped;
            await background.stop();
            await exporter.stop();
            await exporter.drain(timings.exportDrainMs);
            await storage.close();
        })();
        return stopping;
    };
    return { server, deps, url: `http://${connectHost(host)}:${port}`, host, stop, hurryExport: () => exporter.hurry() };
}

/** Calls `fn` every `ms` (never for 0), without keeping the process alive for it. */
function every(ms: number, fn: () => void): NodeJS.Timeout | undefined {
    if (ms <= 0) return undefined;
    const timer = setInterval(fn, ms);
    timer.unref();
    return timer;
}

/**
 * Where to listen: LISTEN_HOST when set; else every interface on the platform (its proxy is the
 * only way in) and with an authKey (the key guards the door); else, on a laptop without a key,
 * 127.0.0.1 only, as a tunnel's local inspector does: nothing else on the network reaches it.
 * Undefined means every interface (Node's default, dual-stack where IPv6 exists, IPv4 where it does
 * not); `LISTEN_HOST=::` asks for exactly that, so the image keeps the platform's old dual-stack listen.
 */
function chooseListenHost(listenHost: string | undefined, onPlatform: boolean, hasKey: boolean): string | undefined {
    if (listenHost === '::') return undefined;
    if (listenHost !== undefined) return listenHost;
    return onPlatform || hasKey ? undefined : '127.0.0.1';
}

const isLoopback = (address: string): boolean => parseIp(address)?.range() === 'loopback';

/** The address a local client connects to: loopback for a wildcard, else the address itself. */
function connectHost(address: string): string {
    if (address === '::' || address === '0.0.0.0') return '127.0.0.1';
    return address.includes(':') ? `[${address}]` : address;
}
