import { startPgServer } from './pg-server.js';
import { ADMIN_URL_VAR } from './pg-pass.js';

/**
 * Global setup of the PostgreSQL pass (vitest.pg.config.ts): one throwaway server for the whole
 * run; the workers read its admin URL from the environment and create a database per service.
 */
export default async function setup(): Promise<() => Promise<void>> {
    const started = Date.now();
    const server = await startPgServer({ fast: true });
    process.env[ADMIN_URL_VAR] = server.url();
    console.log(`PostgreSQL pass: throwaway server on 127.0.0.1:${server.port}, started in ${Date.now() - started} ms`);
    return () => server.stop();
}
