import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { Webhook } from '../storage/types.js';
import type { WebhookRegistry } from './registry.js';

/** Holds the generated webhooks in memory and keeps the registry in step. */
export class WebhookManager {
    private byId = new Map<string, { webhook: Webhook; expiresMs: number }>();
    private initialized = false;

    constructor(private readonly registry: WebhookRegistry, private readonly clock: Clock, private readonly ids: IdGenerator) {}

    /** Loads the registry and tops the active webhooks up to `urlCount`, each living `retentionHours`. */
    async init(urlCount: number, retentionHours: number): Promise<void> {
        for (const webhook of await this.registry.load()) this.remember(webhook);
        const now = this.clock.now();
        const missing = urlCount - this.active().length;
        for (let i = 0; i < missing; i++) {
            this.remember({
                id: this.ids.webhookId(),
                createdAt: new Date(now).toISOString(),
                expiresAt: new Date(now + retentionHours * 3_600_000).toISOString(),
            });
        }
        if (missing > 0) await this.persist();
        this.initialized = true;
    }

    /** Whether init completed. */
    get ready(): boolean {
        return this.initialized;
    }

    /** The webhook if it exists and has not expired. */
    getActive(id: string): Webhook | undefined {
        const found = this.byId.get(id);
        return found && found.expiresMs > this.clock.now() ? found.webhook : undefined;
    }

    /** Every active webhook, oldest first. */
    active(): Webhook[] {
        const now = this.clock.now();
        return [...this.byId.values()].filter((w) => w.expiresMs > now).map((w) => w.webhook);
    }

    /** Forgets expired webhooks and persists the list. Returns how many were removed. */
    async cleanup(): Promise<number> {
        const now = this.clock.now();
        let removed = 0;
        for (const [id, w] of this.byId) {
            if (w.expiresMs <= now) {
                this.byId.delete(id);
                removed++;
            }
        }
        if (removed > 0) await this.persist();
        return removed;
    }

    private remember(webhook: Webhook): void {
        const expiresMs = Date.parse(webhook.expiresAt);
        if (typeof webhook.id === 'string' && Number.isFinite(expiresMs)) this.byId.set(webhook.id, { webhook, expiresMs });
    }

    private persist(): Promise<void> {
        return this.registry.save([...this.byId.values()].map((w) => w.webhook));
    }
}
