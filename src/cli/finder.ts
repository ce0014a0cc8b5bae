import type { LogEntry, LogPageOffset } from '../api/capture.js';
import { FatalError, UsageError } from './errors.js';
import { ServiceError, type ServiceClient } from './service.js';

/** A capture as GET /logs lists it: what anchoring needs. */
type Listed = Pick<LogPageOffset['items'][number], 'id' | 'timestamp'>;

/**
 * The GET /logs questions the command asks with its filter and webhooks: which capture is the
 * newest, which is the first at or after a time, how many come after one. With several webhooks
 * (the filter language cannot OR them) it asks once per webhook and combines the answers.
 */
export class Finder {
    constructor(
        private readonly service: ServiceClient,
        private readonly webhooks: readonly string[],
        private readonly filter: string,
    ) {}

    /** The stream's query: the filter, and the webhook when there is one (several are matched on this side). */
    streamQuery(): URLSearchParams {
        const q = new URLSearchParams(this.filter);
        if (this.webhooks.length === 1) q.append('webhookId', this.webhooks[0]!);
        return q;
    }

    /** Whether a capture of `webhookId` is for this listen. */
    wants(webhookId: string): boolean {
        return this.webhooks.length <= 1 || this.webhooks.includes(webhookId);
    }

    /**
     * Checks the key, the filter and each webhook before anything starts: a refused key, an unknown
     * webhook or an unreachable service is a FatalError, a filter the service refuses a UsageError.
     */
    async check(): Promise<void> {
        try {
            await this.page(this.queries()[0]!, { limit: '1' });
        } catch (error) {
            if (!(error instanceof ServiceError)) throw error;
            if (error.refused) throw new FatalError(`the service refused the key (${error.message}): pass its authKey with --key or WEBHOOK_DEBUGGER_KEY`);
            if (error.status === 400) throw new UsageError(`--filter: ${error.message.replace(/^400 [^:]*: /, '')}`);
            throw new FatalError(error.status === undefined ? error.message : `the service at ${this.service.display} answered ${error.message}`);
        }
        for (const id of this.webhooks) {
            try {
                await this.service.getJson(`/webhooks/${encodeURIComponent(id)}`);
            } catch (error) {
                if (error instanceof ServiceError && error.status === 404) throw new FatalError(`unknown webhook '${id}': it does not exist or has expired on ${this.service.display}`);
                throw new FatalError(`cannot check webhook '${id}': ${(error as Error).message}`);
            }
        }
    }

    /** The newest matching capture, if any. */
    async newest(): Promise<Listed | undefined> {
        const found = await Promise.all(this.queries().map((q) => this.first(q, { limit: '1', sort: 'timestamp:desc' })));
        return pick(found, (a, b) => Date.parse(a.timestamp) > Date.parse(b.timestamp));
    }

    /** The first matching capture captured at or after `ts` (ms) other than `skip`, by capture time. */
    async firstFrom(ts: number, skip: string | undefined): Promise<Listed | undefined> {
        const found = await Promise.all(
            this.queries().map(async (q) => {
                const page = await this.page(q, { limit: '3', sort: 'timestamp:asc', 'timestamp[gte]': String(ts) });
                return page.items.find((item) => item.id !== skip);
            }),
        );
        return pick(found, (a, b) => Date.parse(a.timestamp) < Date.parse(b.timestamp));
    }

    /** How many matching captures were captured after `ts` (or at it, `inclusive`): the size of a backlog. */
    async countFrom(ts: number, inclusive: boolean): Promise<number> {
        const totals = await Promise.all(this.queries().map(async (q) => (await this.page(q, { limit: '1', [inclusive ? 'timestamp[gte]' : 'timestamp[gt]']: String(ts) })).total));
        return totals.reduce((a, b) => a + b, 0);
    }

    /** One capture in full; undefined when the service does not know it (or it was deleted). */
    async entry(id: string): Promise<LogEntry | undefined> {
        try {
            return await this.service.getJson<LogEntry>(`/logs/${encodeURIComponent(id)}`);
        } catch (error) {
            if (error instanceof ServiceError && error.status === 404) return undefined;
            throw error;
        }
    }

    private queries(): URLSearchParams[] {
        if (this.webhooks.length <= 1) return [this.streamQuery()];
        return this.webhooks.map((id) => {
            const q = new URLSearchParams(this.filter);
            q.append('webhookId', id);
            return q;
        });
    }

    private async first(q: URLSearchParams, extra: Record<string, string>): Promise<Listed | undefined> {
        return (await this.page(q, extra)).items[0];
    }

    private page(q: URLSearchParams, extra: Record<string, string>): Promise<LogPageOffset> {
        const query = new URLSearchParams(q);
        // Appended: a time bound of the filter's own still holds beside ours.
        for (const [name, value] of Object.entries(extra)) query.append(name, value);
        return this.service.getJson<LogPageOffset>('/logs', query);
    }
}

function pick<T>(items: (T | undefined)[], better: (a: T, b: T) => boolean): T | undefined {
    let best: T | undefined;
    for (const item of items) if (item !== undefined && (best === undefined || better(item, best))) best = item;
    return best;
}
