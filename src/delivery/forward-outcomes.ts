import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/log.js';
import type { Metrics } from '../lib/metrics.js';
import type { ForwardBacklog } from '../storage/roles.js';
import type { ForwardOutcome } from '../storage/types.js';

/** A final forwarding outcome, before the destination and time are added. */
export type FinalOutcome = Omit<ForwardOutcome, 'url' | 'at'> & { status: 'delivered' | 'failed' | 'dropped' };

/** Forwarding outcomes on their way to storage: counted at once, written together once per turn. */
export class ForwardOutcomes {
    private pending: { eventId: string; outcome: ForwardOutcome }[] = [];
    private readonly writes = new Set<Promise<void>>();

    constructor(
        private readonly url: string,
        private readonly deps: { backlog: Pick<ForwardBacklog, 'recordForwards'>; clock: Clock; log: Logger; metrics: Metrics },
    ) {}

    record(eventId: string, result: FinalOutcome): void {
        this.deps.metrics.forwarding[result.status]++;
        this.pending.push({ eventId, outcome: { ...result, url: this.url, at: new Date(this.deps.clock.now()).toISOString() } });
        if (this.pending.length === 1) setImmediate(() => void this.flush());
    }

    /** Writes the outcomes gathered so far; resolves once every write begun has ended. */
    flush(): Promise<void> {
        const rows = this.pending;
        this.pending = [];
        if (rows.length > 0) {
            const write: Promise<void> = this.deps.backlog
                .recordForwards(rows)
                .catch((error: unknown) => this.deps.log.warn('forwarding outcomes could not be stored', { error: String(error), events: rows.length }))
                .finally(() => this.writes.delete(write));
            this.writes.add(write);
        }
        return Promise.all(this.writes).then(() => undefined);
    }
}
