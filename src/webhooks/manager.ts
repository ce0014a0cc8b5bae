import { AppError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { IdGenerator } from '../lib/ids.js';
import type { Webhook } from '../storage/types.js';
import type { WebhookStore } from '../storage/webhook-store.js';
import { AnswerPlan, type Random } from './answer.js';
import type { WebhookChange } from './schema.js';

/** A webhook held in memory, with its answer plan (sequence position) when it has its own answer. */
export interface ActiveWebhook {
    webhook: Webhook;
    expiresMs: number;
    answer?: AnswerPlan;
    /** Its `response` as JSON, in bytes (0 for none): what it counts against the answers' budget. */
    answerBytes: number;
}

/** What a POST or PATCH may add: the run input's maxWebhooks, and the memory budget's answerBytes. */
export interface WebhookLimits {
    maxWebhooks: number;
    answerBytes: number;
}

/** A `response` as JSON, in bytes. */
const answerSize = (response: unknown): number => (response ? Buffer.byteLength(JSON.stringify(response)) : 0);

const HOUR = 3_600_000;
const byAge = (a: Webhook, b: Webhook): number => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1);

/**
 * Holds the webhooks in memory (ingest looks them up synchronously) and writes every change through
 * to the store, one record per webhook. `refresh` takes in what other runs changed.
 */
export class WebhookManager {
    private byId = new Map<string, ActiveWebhook>();
    private initialized = false;
    private defaultRetentionHours = 24;
    /** Bumped by every local change, so a refresh that started before one does not undo it. */
    private generation = 0;
    private runningRefresh: Promise<void> | undefined;
    private queuedRefresh: Promise<void> | undefined;
    /** Webhooks and answer bytes of creates and updates being written, so concurrent ones are counted together. */
    private readonly pending = { webhooks: 0, answerBytes: 0 };

    constructor(private readonly store: WebhookStore, private readonly clock: Clock, private readonly ids: IdGenerator, private readonly random: Random = Math.random) {}

    /** Loads the stored webhooks and tops the active ones up to `urlCount`, each living `retentionHours`. */
    async init(urlCount: number, retentionHours: number): Promise<void> {
        this.defaultRetentionHours = retentionHours;
        const topUp = async (): Promise<void> => {
            for (const webhook of await this.store.list()) this.remember(webhook);
            const missing = urlCount - this.active().length;
            for (let i = 0; i < missing; i++) await this.create({});
        };
        // A shared store: instances starting together list and create one after another, so they
        // create `urlCount` webhooks in all rather than each its own.
        await (this.store.exclusive ? this.store.exclusive(topUp) : topUp());
        this.initialized = true;
    }

    /** Whether init completed. */
    get ready(): boolean {
        return this.initialized;
    }

    /** The webhook and its answer plan if it exists and has not expired. */
    findActive(id: string): ActiveWebhook | undefined {
        const found = this.byId.get(id);
        return found && found.expiresMs > this.clock.now() ? found : undefined;
    }

    /** The webhook if it exists and has not expired. */
    getActive(id: string): Webhook | undefined {
        return this.findActive(id)?.webhook;
    }

    /** Every active webhook, oldest first. */
    active(): Webhook[] {
        const now = this.clock.now();
        return [...this.byId.values()].filter((w) => w.expiresMs > now).map((w) => w.webhook).sort(byAge);
    }

    /**
     * Creates a webhook (POST /webhooks, or the start's top-up) and stores it before it is handed out.
     * With `limits` (POST), throws 409 at maxWebhooks active ones and 413 past the answers' budget.
     */
    async create(change: WebhookChange, limits?: WebhookLimits): Promise<Webhook> {
        const bytes = answerSize(change.response);
        if (limits) this.admit(limits, 1, bytes);
        const now = this.clock.now();
        const webhook: Webhook = {
            id: this.ids.webhookId(),
            createdAt: new Date(now).toISOString(),
            expiresAt: new Date(now + (change.retentionHours ?? this.defaultRetentionHours) * HOUR).toISOString(),
            name: change.name ?? null,
            response: change.response ?? null,
            updatedAt: now,
        };
        this.generation++;
        await this.pendingWhile(1, bytes, () => this.store.create(webhook));
        this.remember(webhook);
        return webhook;
    }

    /**
     * Applies a PATCH; undefined when the webhook is unknown or expired. Takes effect on the next
     * request. With `limits`, throws 413 when a larger answer would pass the answers' budget.
     */
    async update(id: string, change: WebhookChange, limits?: WebhookLimits): Promise<Webhook | undefined> {
        const found = this.findActive(id);
        if (!found) return undefined;
        const current = found.webhook;
        const growth = change.response === undefined ? 0 : answerSize(change.response) - found.answerBytes;
        if (limits) this.admit(limits, 0, growth);
        const now = this.clock.now();
        const next: Webhook = { ...current, updatedAt: Math.max(now, (current.updatedAt ?? 0) + 1) };
        if (change.name !== undefined) next.name = change.name;
        if (change.response !== undefined) next.response = change.response;
        if (change.retentionHours !== undefined) next.expiresAt = new Date(now + change.retentionHours * HOUR).toISOString();
        this.generation++;
        await this.pendingWhile(0, Math.max(0, growth), () => this.store.update(next));
        // Setting the response again starts its sequence over, even when it is the same.
        this.remember(next, change.response !== undefined);
        return next;
    }

    /** Deletes a webhook: ingest on it answers 404 from now on. False when unknown or expired. */
    async remove(id: string): Promise<boolean> {
        if (!this.getActive(id)) return false;
        this.generation++;
        this.byId.delete(id);
        await this.store.delete(id);
        return true;
    }

    /**
     * Takes in the store's current state (what other runs created, changed or deleted). One reading
     * at a time: an older listing applied after a newer one would bring back what the newer one
     * removed. A call while one runs is answered by the next one, shared by every such call.
     */
    refresh(): Promise<void> {
        if (this.queuedRefresh) return this.queuedRefresh;
        if (!this.runningRefresh) return this.startRefresh();
        const queued = this.runningRefresh.catch(() => undefined).then(() => {
            this.queuedRefresh = undefined;
            return this.startRefresh();
        });
        this.queuedRefresh = queued;
        return queued;
    }

    private startRefresh(): Promise<void> {
        const run = this.refreshOnce().finally(() => {
            if (this.runningRefresh === run) this.runningRefresh = undefined;
        });
        this.runningRefresh = run;
        return run;
    }

    private async refreshOnce(): Promise<void> {
        const generation = this.generation;
        const stored = await this.store.list();
        if (generation !== this.generation) return;
        const seen = new Set<string>();
        for (const webhook of stored) {
            seen.add(webhook.id);
            const known = this.byId.get(webhook.id);
            if (!known || (webhook.updatedAt ?? 0) > (known.webhook.updatedAt ?? 0)) this.remember(webhook);
        }
        for (const id of this.byId.keys()) if (!seen.has(id)) this.byId.delete(id);
    }

    /**
     * Refreshes whenever the store tells of a change (a shared database's notice, as the change
     * commits); notices during a refresh share the one after it. Returns the unsubscribe; a store
     * that cannot tell is only polled.
     */
    follow(onError: (error: unknown) => void): () => void {
        return this.store.onChange?.(() => void this.refresh().catch(onError)) ?? (() => undefined);
    }

    /** Deletes expired webhooks from memory and the store. Returns how many were removed. */
    async cleanup(): Promise<number> {
        const now = this.clock.now();
        const expired = [...this.byId.values()].filter((w) => w.expiresMs <= now).map((w) => w.webhook.id);
        for (const id of expired) {
            this.byId.delete(id);
            await this.store.delete(id);
        }
        return expired.length;
    }

    /**
     * Throws unless `webhooks` more active webhooks and `growth` more answer bytes fit `limits`. Counted
     * over this instance's list: with a shared store, as of its last refresh. A change that does not
     * grow the answers passes even over the budget (a smaller memory than the answers were made in).
     */
    private admit(limits: WebhookLimits, webhooks: number, growth: number): void {
        if (webhooks > 0) {
            const now = this.clock.now();
            let active = this.pending.webhooks;
            for (const entry of this.byId.values()) if (entry.expiresMs > now) active++;
            if (active + webhooks > limits.maxWebhooks) {
                throw new AppError(409, `This service holds its maximum of ${limits.maxWebhooks} active webhooks (maxWebhooks); delete one first`, { limit: limits.maxWebhooks });
            }
        }
        if (growth <= 0) return;
        let held = this.pending.answerBytes;
        for (const entry of this.byId.values()) held += entry.answerBytes;
        if (held + growth > limits.answerBytes) {
            throw new AppError(413, `The webhooks' answers are held in memory within a budget of ${limits.answerBytes} bytes (a sixteenth of ACTOR_MEMORY_MBYTES); they hold ${held} bytes now, and this change needs ${growth} more`, { limit: limits.answerBytes, used: held });
        }
    }

    /** Runs a write with its webhooks and answer bytes counted as pending until it settles. */
    private async pendingWhile<T>(webhooks: number, bytes: number, write: () => Promise<T>): Promise<T> {
        this.pending.webhooks += webhooks;
        this.pending.answerBytes += bytes;
        try {
            return await write();
        } finally {
            this.pending.webhooks -= webhooks;
            this.pending.answerBytes -= bytes;
        }
    }

    private remember(webhook: Webhook, rearm = false): void {
        const expiresMs = Date.parse(webhook.expiresAt);
        if (typeof webhook.id !== 'string' || !Number.isFinite(expiresMs)) return;
        const entry: ActiveWebhook = { webhook, expiresMs, answerBytes: answerSize(webhook.response) };
        const response = webhook.response ?? undefined;
        if (response) {
            // The sequence position carries over unless the answer itself changed.
            const previous = this.byId.get(webhook.id)?.answer;
            entry.answer = !rearm && previous && JSON.stringify(previous.spec) === JSON.stringify(response) ? previous : new AnswerPlan(response, this.random);
        }
        this.byId.set(webhook.id, entry);
    }
}
