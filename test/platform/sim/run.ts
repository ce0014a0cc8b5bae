import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { encryptInputSecrets } from '@apify/input_secrets';
import type { ApifySim } from './server.js';
import type { SimRun } from './state.js';

const inputSchema = JSON.parse(readFileSync(new URL('../../../INPUT_SCHEMA.json', import.meta.url), 'utf8')) as object;

// One key pair per test process, as the platform holds one per actor: secret input fields are
// encrypted with the public key, and the run gets the private key in its environment.
const passphrase = 'sim-passphrase';
const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
});

/** How to start a run. */
export interface RunOptions {
    actorId: string;
    /** Run input as the console would save it; secret fields (isSecret in INPUT_SCHEMA.json) are encrypted. */
    input: Record<string, unknown>;
    /** ACTOR_TASK_ID, when the run belongs to a task. */
    taskId?: string;
}

/** A run on the simulated platform and the environment a container of it gets. */
export interface PlatformRun {
    run: SimRun;
    env: Record<string, string>;
}

/** Creates a run (fresh default storages, INPUT record) and the platform env vars of its containers. */
export function startRun(sim: ApifySim, { actorId, input, taskId }: RunOptions): PlatformRun {
    const run = sim.state.createRun(actorId);
    const encrypted = encryptInputSecrets({ input, inputSchema, publicKey: createPublicKey(keys.publicKey) });
    sim.state.kvs.get(run.defaultKeyValueStoreId)!.records.set('INPUT', { body: Buffer.from(JSON.stringify(encrypted)), contentType: 'application/json; charset=utf-8' });
    const env: Record<string, string> = {
        APIFY_IS_AT_HOME: '1',
        APIFY_TOKEN: sim.token,
        APIFY_API_BASE_URL: sim.url,
        APIFY_API_PUBLIC_BASE_URL: sim.url,
        ACTOR_ID: actorId,
        ACTOR_RUN_ID: run.id,
        ACTOR_BUILD_ID: 'simBuild',
        ACTOR_DEFAULT_KEY_VALUE_STORE_ID: run.defaultKeyValueStoreId,
        ACTOR_DEFAULT_DATASET_ID: run.defaultDatasetId,
        ACTOR_DEFAULT_REQUEST_QUEUE_ID: 'simQueue',
        ACTOR_EVENTS_WEBSOCKET_URL: sim.eventsUrl(run.id),
        ACTOR_MEMORY_MBYTES: '1024',
        ACTOR_STANDBY_URL: `https://${actorId.toLowerCase()}.apify.actor`,
        APIFY_INPUT_SECRETS_PRIVATE_KEY_FILE: Buffer.from(keys.privateKey).toString('base64'),
        APIFY_INPUT_SECRETS_PRIVATE_KEY_PASSPHRASE: passphrase,
        // The storage folder stays the test's temp dir, not ./storage of the repository.
        INPUT: '',
    };
    if (taskId) env.ACTOR_TASK_ID = taskId;
    return { run, env };
}
