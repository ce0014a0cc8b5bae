import type { IngestDeps } from './ingest/context.js';
import type { LiveHub } from './live/hub.js';

/** Readiness of the parts /ready reports on. */
export interface Readiness {
    /** Set once storage and webhooks are initialized; cleared at shutdown. */
    accepting: boolean;
    /** Progress of a catch-up from the dataset, when one runs. */
    catchUp?: { imported: number; done: boolean; error?: string };
}

/** Everything the routes need; built by compose.ts. */
export interface AppDeps extends IngestDeps {
    readiness: Readiness;
    version: string;
    /** The public base URL (known once the server listens). */
    baseUrl(): string;
    /** The live feed of GET /log-stream; `publish` feeds it. */
    live: LiveHub;
}
