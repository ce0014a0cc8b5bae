import type { IngestDeps } from '../ingest/context.js';
import type { LiveHub } from '../live/hub.js';
import type { Readiness } from '../storage/readiness.js';

/** Everything the routes need; built by compose.ts. */
export interface AppDeps extends IngestDeps {
    readiness: Readiness;
    version: string;
    /** The public base URL (known once the server listens). */
    baseUrl(): string;
    /** The live feed of GET /log-stream; `publish` feeds it. */
    live: LiveHub;
}
