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
    log.info(`Webhook Debugger ${service.deps.version} listening on port ${new URL(service.url).port}`);
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
        Actor.on('migrating', () => shutdown('migrating'));
        Actor.on('aborting', () => shutdown('aborting'));
    }
}

main().catch((error: unknown) => {
    log.error('failed to start', { error: error instanceof Error ? error.stack : String(error) });
    process.exit(1);
});
