import type { ReplayJobs } from '../delivery/replay-jobs/jobs.js';
import type { IngestDeps } from '../ingest/context.js';
import type { LiveHub } from '../live/hub.js';
import type { Readiness } from '../storage/readiness.js';
import type { StorageBundle } from '../storage/bundle.js';

/** Everything the routes need; built by compose.ts. */
export interface AppDeps extends IngestDeps {
    /** Every storage role, complete for the configured mode; each route uses the ones it needs. */
    storage: StorageBundle;
    readiness: Readiness;
    version: string;
    /** The public base URL (known once the server listens). */
    baseUrl(): string;
    /** The live feed of GET /log-stream; `publish` feeds it. */
    live: LiveHub;
    /** Bulk replay jobs: made, read, cancelled and retried by the /replay-jobs routes. */
    replayJobs: ReplayJobs;
}
