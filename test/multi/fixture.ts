import { afterAll, afterEach, beforeAll } from 'vitest';
import { pgServerFor, type PgServer, type PgServerKind } from '../helpers/pg-server.js';
import { removeDir, startServiceProcess, type ServiceProcess } from '../helpers/process.js';

/** A PostgreSQL server for a describe block (its own, or databases of the run's one), and the service processes its tests start. */
export interface InstancesFixture {
    /** The server (set before the first test). */
    readonly pg: PgServer;
    /** Starts `node dist/main.js` on database `url` (urlCount 1 unless given); stopped and removed after the test. */
    startInstance(url: string, input?: Record<string, unknown>, env?: Record<string, string>): Promise<ServiceProcess>;
}

/** Registers the block's hooks: the server before all, each test's instances stopped after it, the server stopped at the end. */
export function useInstances(kind: PgServerKind): InstancesFixture {
    let pg: PgServer | undefined;
    const started: ServiceProcess[] = [];
    beforeAll(async () => {
        pg = await pgServerFor(kind);
    }, 60_000);
    afterEach(async () => {
        for (const svc of started.splice(0)) {
            await svc.stop();
            await removeDir(svc.dir);
        }
    });
    afterAll(async () => {
        await pg?.stop();
    });
    return {
        get pg() {
            if (!pg) throw new Error('the PostgreSQL server is not started yet');
            return pg;
        },
        async startInstance(url, input = {}, env = {}) {
            const svc = await startServiceProcess({ input: { urlCount: 1, ...input }, env: { DATABASE_URL: url, ...env }, readyTimeoutMs: 60_000 });
            started.push(svc);
            return svc;
        },
    };
}
