import { makePgTemplate, startPgServer, TEMPLATE_VAR, type PgServer } from './pg-server.js';
import { ADMIN_URL_VAR } from './pg-pass.js';

interface Shared {
    users: number;
    ready: Promise<{ server: PgServer; template: { dir: string; remove(): void } }>;
}

// Several projects of one run name this setup, and vitest runs it once per project, each time in a
// module of its own: the process-wide slot makes it one server and one template per run.
const SLOT = Symbol.for('webhook-debugger.pg-global-setup');
const holder = globalThis as { [SLOT]?: Shared };

async function start(): Promise<Awaited<Shared['ready']>> {
    const started = Date.now();
    const template = makePgTemplate();
    process.env[TEMPLATE_VAR] = template.dir;
    // Every file of a pass at once, each service with its pools: room for all of them.
    const server = await startPgServer({ fast: true, settings: ['max_connections=1000'] });
    console.log(`PostgreSQL: one throwaway server for the run on 127.0.0.1:${server.port}, started in ${Date.now() - started} ms`);
    return { server, template };
}

/**
 * Global setup of the projects that use PostgreSQL: one throwaway server for the whole run (the
 * workers read its admin URL from the environment and create a database per service or file), and
 * the initialised data folder that servers of a test's own start on copies of.
 */
export default async function setup(): Promise<() => Promise<void>> {
    const shared = (holder[SLOT] ??= { users: 0, ready: start() });
    shared.users += 1;
    const { server, template } = await shared.ready;
    process.env[ADMIN_URL_VAR] = server.url();
    process.env[TEMPLATE_VAR] = template.dir;
    return async () => {
        shared.users -= 1;
        if (shared.users > 0) return;
        delete holder[SLOT];
        await server.stop();
        template.remove();
    };
}
