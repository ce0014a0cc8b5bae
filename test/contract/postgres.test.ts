import { afterAll, describe } from 'vitest';
import { silentLogger } from '../../src/lib/log.js';
import { openPgStorage } from '../../src/storage/pg/index.js';
import { pgTestsCanRun, startPgServer, type PgServer } from '../helpers/pg-server.js';
import { describeStorageContract } from './contract.js';

// The shared backend: every test gets a fresh database on one throwaway server; a peer is another
// instance (its own instance id) on the same database, as a second process would be.
const available = pgTestsCanRun('the PostgreSQL storage contract');

let server: Promise<PgServer> | undefined;
let instances = 0;
afterAll(async () => {
    await (await server)?.stop();
});

describe.skipIf(!available)('postgres', () => {
    describeStorageContract('postgres', async () => {
        server ??= startPgServer({ fast: true });
        const url = await (await server).createDatabase('contract');
        const instanceId = `contract-${instances++}`;
        const open = (id: string) => openPgStorage({ url, instanceId: id, log: silentLogger });
        return {
            storage: await open(instanceId),
            peer: () => open(`contract-${instances++}`),
            // The same instance started again.
            reopen: () => open(instanceId),
            // The server and its data folder go when the file ends.
            cleanup: async () => undefined,
        };
    }, {
        shared: true,
        webhooks: true,
        blobs: true,
        // The server stops (fast shutdown) and starts again on the same port and data.
        outage: { stop: async () => (await server!).pause(), start: async () => (await server!).resume() },
    });
});
