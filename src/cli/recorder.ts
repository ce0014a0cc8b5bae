import { MAX_DELIVERY_REPORTS, type DeliveryReport } from '../api/delivery.js';
import { ServiceError, type ServiceClient } from './service.js';

/**
 * Records each delivery on its capture (POST /logs/deliveries), in the background and in batches:
 * one request at a time carries every report made meanwhile (up to 1,000), so a live delivery is
 * recorded at once and a backlog costs a request per batch, not per capture. A delivery never waits
 * for its record; reports the service cannot take are reported once and dropped (they are a history
 * for the dashboard: what was delivered is the state file's business).
 */
export class Recorder {
    private queue: DeliveryReport[] = [];
    private sending = false;
    private idle: (() => void)[] = [];
    private readonly reported = new Set<string>();

    constructor(
        private readonly service: ServiceClient,
        private readonly message: (text: string) => void,
    ) {}

    /** Queues the record of one delivery. */
    add(report: DeliveryReport): void {
        this.queue.push(report);
        if (!this.sending) void this.pump();
    }

    /** Resolves once every queued report is sent, or after `ms`. */
    async flush(ms: number): Promise<void> {
        if (!this.sending && this.queue.length === 0) return;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([new Promise<void>((r) => this.idle.push(r)), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
        clearTimeout(timer);
    }

    private async pump(): Promise<void> {
        this.sending = true;
        while (this.queue.length > 0) {
            const items = this.queue.splice(0, MAX_DELIVERY_REPORTS);
            try {
                await this.service.postJson('/logs/deliveries', { items });
            } catch (error) {
                const what = error instanceof ServiceError ? String(error.status ?? 'network') : 'other';
                if (!this.reported.has(what)) {
                    this.reported.add(what);
                    this.message(`could not record ${items.length === 1 ? 'a delivery' : `${items.length} deliveries`} on the service (${(error as Error).message}); deliveries go on`);
                }
            }
        }
        this.sending = false;
        for (const done of this.idle.splice(0)) done();
    }
}
