/**
 * A count of bytes taken from a fixed share of the memory budget. Takers that find no room do
 * something else (spill to disk) instead of waiting, so a flood never queues memory behind memory.
 */
export class BytePool {
    private used = 0;
    /** The most ever held at once (the budget tests read it; /system/metrics does not show it yet). */
    peak = 0;
    /** Times a taker found no room. */
    refused = 0;

    constructor(readonly capacity: number) {}

    /** Bytes held now. */
    get inUse(): number {
        return this.used;
    }

    /** Takes `bytes` when they fit; false (and nothing taken) when they do not. */
    tryTake(bytes: number): boolean {
        if (this.used + bytes > this.capacity) {
            this.refused++;
            return false;
        }
        this.used += bytes;
        if (this.used > this.peak) this.peak = this.used;
        return true;
    }

    /** Gives back bytes taken earlier. */
    give(bytes: number): void {
        this.used = Math.max(0, this.used - bytes);
    }
}
