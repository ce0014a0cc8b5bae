import type { KeyValueStore } from 'apify';
import type { Webhook } from '../types.js';
import type { WebhookRegistry } from '../../webhooks/registry.js';

const KEY = 'WEBHOOKS';

/** The webhook list as one JSON record of the actor's key-value store. */
export class KvWebhookRegistry implements WebhookRegistry {
    constructor(private readonly kvs: KeyValueStore) {}

    async load(): Promise<Webhook[]> {
        const value = await this.kvs.getValue<Webhook[]>(KEY);
        return Array.isArray(value) ? value : [];
    }

    async save(webhooks: Webhook[]): Promise<void> {
        await this.kvs.setValue(KEY, webhooks);
    }
}
