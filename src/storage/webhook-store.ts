import type { Webhook } from './types.js';

/**
 * Where webhooks persist, one record per webhook: the local key-value store under the storage
 * folder, or the named key-value store on the platform (shared by every run of the actor). A
 * shared database can implement the same interface later.
 */
export interface WebhookStore {
    /** Every stored webhook, expired ones included; empty on a first start. */
    list(): Promise<Webhook[]>;
    /** One webhook, or undefined when none has this id. */
    get(id: string): Promise<Webhook | undefined>;
    /** Stores a new webhook. */
    create(webhook: Webhook): Promise<void>;
    /** Replaces a stored webhook (its `updatedAt` is the newer one). */
    update(webhook: Webhook): Promise<void>;
    /** Removes a webhook; removing an unknown one is not an error. */
    delete(id: string): Promise<void>;
    /**
     * Runs `fn` while no other instance runs its own `exclusive` section on the same store (a
     * shared database takes an advisory lock), so a list-then-create at start is done by one
     * instance at a time and instances started together create `urlCount` webhooks in all.
     * Absent when one process owns the store.
     */
    exclusive?<T>(fn: () => Promise<T>): Promise<T>;
    /**
     * Calls `listener` soon after another instance (or this one) created, changed or deleted a
     * webhook of a shared store; returns the unsubscribe. Absent where changes are only polled.
     * A notice may be lost (a connection down): callers poll as well.
     */
    onChange?(listener: () => void): () => void;
}
