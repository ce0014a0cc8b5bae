import type { KeyValueStore } from 'apify';
import type { Webhook } from '../types.js';
import type { WebhookStore } from '../webhook-store.js';
import { Deadlines } from './deadline.js';

/** The record that held the whole list before each webhook had its own; migrated on first start. */
const LEGACY_KEY = 'WEBHOOKS';
const PREFIX = 'webhook-';
const random4 = (): string => Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, '0');

/**
 * The record key of one version of a webhook: `webhook-<id>-<rev>`, rev = its write time (base 36)
 * and 4 random characters. The version is in the key so that listing the keys (one API call per
 * 1,000) shows what changed: only changed records are fetched again. Webhook ids have no `-`.
 */
const keyOf = (webhook: Webhook): string => `${PREFIX}${webhook.id}-${Math.floor(webhook.updatedAt ?? 0).toString(36).padStart(9, '0')}${random4()}`;
const idOfKey = (key: string): string => key.slice(PREFIX.length, key.lastIndexOf('-'));
const revOfKey = (key: string): string => key.slice(key.lastIndexOf('-') + 1);

/**
 * Webhooks as records of a key-value store, one per webhook, so that two runs changing different
 * webhooks never overwrite each other. Locally the store is the default one under the storage folder;
 * on the platform the named store every run shares. The newest version of a webhook wins; older
 * versions are removed when seen.
 */
export class KvWebhookStore implements WebhookStore {
    /** Fetched records by key: a key names one immutable version. */
    private readonly fetched = new Map<string, Webhook>();
    /** The key of each webhook's newest known version. */
    private readonly keys = new Map<string, string>();
    /** API calls made, for the cost figure of polling. */
    calls = 0;

    /** Every call has a total deadline (deadline.ts): a stuck API fails the change or the poll instead of holding it. */
    constructor(private readonly kvs: KeyValueStore, private readonly deadlines: Deadlines = new Deadlines()) {}

    /** Moves the single-record list of older versions into one record per webhook. */
    async migrate(): Promise<number> {
        this.calls++;
        const legacy = await this.deadlines.run('webhook read', 0, () => this.kvs.getValue<Webhook[]>(LEGACY_KEY));
        if (!Array.isArray(legacy)) return 0;
        for (const webhook of legacy) if (typeof webhook?.id === 'string' && !webhook.id.includes('-')) await this.write(webhook);
        this.calls++;
        await this.deadlines.run('webhook write', 0, () => this.kvs.setValue(LEGACY_KEY, null));
        return legacy.length;
    }

    async list(): Promise<Webhook[]> {
        const newest = new Map<string, string>();
        const stale: string[] = [];
        this.calls++;
        await this.deadlines.run('webhook listing', 0, () => this.kvs.forEachKey((key) => {
            const id = idOfKey(key);
            const known = newest.get(id);
            if (known === undefined) newest.set(id, key);
            else if (revOfKey(known) < revOfKey(key)) (stale.push(known), newest.set(id, key));
            else stale.push(key);
        }, { prefix: PREFIX }));
        const webhooks: Webhook[] = [];
        for (const [id, key] of newest) {
            let webhook = this.fetched.get(key);
            if (!webhook) {
                this.calls++;
                webhook = (await this.deadlines.run('webhook read', 0, () => this.kvs.getValue<Webhook>(key))) ?? undefined;
                if (!webhook) continue;
                this.fetched.set(key, webhook);
            }
            this.keys.set(id, key);
            webhooks.push(webhook);
        }
        for (const [key, webhook] of this.fetched) if (newest.get(webhook.id) !== key) this.fetched.delete(key);
        for (const id of this.keys.keys()) if (!newest.has(id)) this.keys.delete(id);
        for (const key of stale) await this.remove(key);
        return webhooks;
    }

    async get(id: string): Promise<Webhook | undefined> {
        return (await this.list()).find((w) => w.id === id);
    }

    create(webhook: Webhook): Promise<void> {
        return this.write(webhook);
    }

    update(webhook: Webhook): Promise<void> {
        return this.write(webhook);
    }

    async delete(id: string): Promise<void> {
        // Every version, including one another run wrote since this one last looked.
        const keys: string[] = [];
        this.calls++;
        await this.deadlines.run('webhook listing', 0, () => this.kvs.forEachKey((key) => void (idOfKey(key) === id && keys.push(key)), { prefix: `${PREFIX}${id}-` }));
        for (const key of keys) await this.remove(key);
        this.keys.delete(id);
    }

    private async write(webhook: Webhook): Promise<void> {
        const key = keyOf(webhook);
        const previous = this.keys.get(webhook.id);
        this.calls++;
        await this.deadlines.run('webhook write', 0, () => this.kvs.setValue(key, webhook));
        this.fetched.set(key, webhook);
        this.keys.set(webhook.id, key);
        if (previous !== undefined && previous !== key) await this.remove(previous);
    }

    private async remove(key: string): Promise<void> {
        this.fetched.delete(key);
        this.calls++;
        await this.deadlines.run('webhook write', 0, () => this.kvs.setValue(key, null));
    }
}
