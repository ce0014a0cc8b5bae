import type { IngestDeps } from '../ingest/context.js';
import type { LiveHub } from '../live/hub.js';
import type { Readiness } from '../storage/readiness.js';
import type { Storage } from '../storage/roles.js';

/** Everything the routes need; built by compose.ts. */
export interface AppDeps extends IngestDeps {
    /** Every storage role; each route uses the ones it needs. */
    storage: Storage;
    readiness: Readiness;
    version: string;
    /** The public base URL (known once the server listens). */
    baseUrl(): string;
    /** The live feed of GET /log-stream; `publish` feeds it. */
    live: LiveHub;
}
