import type { Capture } from './request.js';

/** A capture taken from the stream, in stream order; `done` once it is delivered (or was not for us). */
interface Slot {
    id: string;
    ts: number;
    done: boolean;
}

/** What the dispatcher calls. */
export interface DispatchHooks {
    /** Delivers one capture; resolves once it is delivered, rejects when the command must stop. */
    deliver(capture: Capture): Promise<void>;
    /** Everything up to and including `id` (captured at `ts`) is delivered: the state may say so. */
    advanced(id: string, ts: number): void;
    /** A delivery rejected: the command stops (the watermark stays before it). */
    failed(error: unknown): void;
}

/**
 * Runs up to `concurrency` deliveries at once, started in stream (capture) order; with 1, strictly
 * one after another. It keeps a watermark: the last capture before which every one was delivered,
 * which is what the state file records, so a restart repeats at most the deliveries that were in
 * flight. `submit` waits for a free slot, which is what holds the stream (and the service's resume)
 * back while the local server is slow or down.
 */
export class Dispatcher {
    private readonly slots: Slot[] = [];
    private inFlight = 0;
    private waiters: (() => void)[] = [];
    private stopped = false;

    constructor(
        private readonly concurrency: number,
        private readonly hooks: DispatchHooks,
    ) {}

    /** Takes the next capture of the stream; `capture` undefined: a frame that is not for us, which only moves the watermark. */
    async submit(id: string, ts: number, capture: Capture | undefined): Promise<void> {
        while (this.inFlight >= this.concurrency && !this.stopped) await new Promise<void>((r) => this.waiters.push(r));
        if (this.stopped) return;
        const slot: Slot = { id, ts, done: capture === undefined };
        this.slots.push(slot);
        if (capture === undefined) return this.advance();
        this.inFlight++;
        this.hooks.deliver(capture).then(
            () => {
                slot.done = true;
                this.release();
            },
            (error: unknown) => {
                this.stop();
                this.hooks.failed(error);
                this.release();
            },
        );
    }

    /** Resolves once nothing is in flight. */
    async idle(): Promise<void> {
        while (this.inFlight > 0) await new Promise<void>((r) => this.waiters.push(r));
    }

    /** Takes nothing more: waiting submits return at once. */
    stop(): void {
        this.stopped = true;
        for (const wake of this.waiters.splice(0)) wake();
    }

    private release(): void {
        this.inFlight--;
        if (!this.stopped) this.advance();
        for (const wake of this.waiters.splice(0)) wake();
    }

    private advance(): void {
        let last: Slot | undefined;
        while (this.slots[0]?.done) last = this.slots.shift();
        if (last) this.hooks.advanced(last.id, last.ts);
    }
}
