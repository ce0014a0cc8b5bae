import { Actor } from 'apify';
import { startService } from './compose.js';
import { ConfigError } from './errors.js';
import { consoleLogger as log } from './lib/log.js';
import { readEnv } from './config/index.js';

/** Entry point: starts the service, prints where it is, and shuts down gracefully on signals. */
async function main(): Promise<void> {
    let env;
    let service;
    try {
        env = readEnv();
        if (env.onPlatform) {
            // We drain and flush ourselves on migrating/aborting; the SDK must not exit under us.
            await Actor.init({ gracefulShutdown: false } as Parameters<typeof Actor.init>[0]);
        }
        service = await startService();
    } catch (error) {
        if (error instanceof ConfigError) {
            process.stderr.write(`${error.message}\n`);
            process.exit(1);
        }
        throw error;
    }
    const base = service.deps.baseUrl();
    const key = service.deps.config.input.authKey ? '?key=<authKey>' : '';
    // Loopback only (the default on a laptop without a key) says how to widen it.
    const reach = service.host.startsWith('127.') ? ' (this machine only; LISTEN_HOST widens it)' : '';
    log.info(`Webhook Debugger ${service.deps.version} listening on port ${new URL(service.url).port} at ${service.host}${reach}`);
    for (const w of service.deps.webhooks.active()) log.info(`Webhook URL: ${base}/webhook/${w.id}  (expires ${w.expiresAt})`);
    log.info(`Dashboard: ${base}/${key}`);

    let exiting = false;
    const shutdown = (reason: string): void => {
        if (exiting) return;
        exiting = true;
        log.info(`Shutting down (${reason})`);
        service
            .stop()
            .then(() => (env.onPlatform ? Actor.exit({ exit: false } as Parameters<typeof Actor.exit>[0]) : undefined))
            .then(
                () => process.exit(0),
                (error: unknown) => {
                    log.error('shutdown failed', { error: String(error) });
                    process.exit(1);
                },
            );
    };
    // A bug must not take the capture service down with it: log and keep serving.
    process.on('unhandledRejection', (reason) => log.error('unhandled rejection', { error: reason instanceof Error ? reason.stack : String(reason) }));
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
    if (env.onPlatform) {
        // Migrating: the run moves to a new container within timeRemainingSecs. Senders keep being
        // answered and the export stops pacing, so the dataset holds what was acknowledged; we stop
        // ourselves early enough for the final flush to finish before the platform's stop.
        Actor.on('migrating', (data: unknown) => {
            log.info('Platform migration announced: capture goes on, the export flushes without pacing');
            service.hurryExport();
            const stopAt = migrationStopDelayMs(data);
            if (stopAt !== undefined) setTimeout(() => shutdown('migrating'), stopAt).unref();
        });
        Actor.on('aborting', () => shutdown('aborting'));
    }
}

/** Time kept back from a migration's notice for the final flush and close. */
const MIGRATION_STOP_RESERVE_MS = 5_000;

/** When to stop after a `migrating` event: its timeRemainingSecs minus the reserve; undefined waits for SIGTERM. */
function migrationStopDelayMs(data: unknown): number | undefined {
    const secs = data && typeof data === 'object' ? (data as { timeRemainingSecs?: unknown }).timeRemainingSecs : undefined;
    if (typeof secs !== 'number' || !Number.isFinite(secs)) return undefined;
    return Math.max(0, secs * 1000 - MIGRATION_STOP_RESERVE_MS);
}

main().catch((error: unknown) => {
    log.error('failed to start', { error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
});
