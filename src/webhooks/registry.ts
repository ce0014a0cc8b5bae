import type { Webhook } from '../storage/types.js';

/** Where the list of generated webhooks persists. */
export interface WebhookRegistry {
    /** Every stored webhook, expired ones included; empty on a first start. */
    load(): Promise<Webhook[]>;
    /** Replaces the stored list. */
    save(webhooks: Webhook[]): Promise<void>;
}
