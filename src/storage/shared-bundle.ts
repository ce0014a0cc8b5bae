import type { ServiceTimings } from '../config/index.js';
import type { StorageBundle } from './bundle.js';
import type { Storage } from './roles.js';

const NOTHING_IN_THE_BACKGROUND = { stop: () => Promise.resolve() };

/**
 * PostgreSQL mode, complete: the shared database is the one truth. It keeps webhooks, payloads and
 * deletions itself, and no instance rebuilds it from (or merges) the dataset, which only receives
 * the export. Other instances change webhooks and add to the forwarding backlog: both are read
 * again every so often (a change also notifies, a commit also wakes).
 */
export function sharedBundle(store: Storage & Required<Pick<Storage, 'webhooks' | 'blobs'>>, timings: Pick<ServiceTimings, 'webhookPollMs' | 'forwardPollMs'>): StorageBundle {
    return {
        ...store,
        deletions: undefined,
        pollWebhooksMs: timings.webhookPollMs,
        // A dead instance's backlog is claimed when this one reads the backlog: read it even while
        // this instance captures nothing.
        forwardWakeMs: timings.forwardPollMs,
        // One statement a second: a job made on another instance, or left by a dead one, starts soon.
        replayJobPollMs: 1000,
        startBackground: () => Promise.resolve(NOTHING_IN_THE_BACKGROUND),
    };
}
