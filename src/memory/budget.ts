/**
 * The one memory budget of the service, derived from the container's memory (ACTOR_MEMORY_MBYTES,
 * 1,024 MB when unset). The image gives half of it to the V8 heap (scripts/heap-options.sh); the
 * rest holds the worker threads, SQLite's caches and every Buffer outside the heap. Every path that
 * holds bytes in proportion to its work takes its share from here, so no kind of load can grow the
 * process past the container.
 */
export interface MemoryBudget {
    /** The container's memory, in bytes. */
    readonly totalBytes: number;
    /**
     * Request bodies held whole in memory, all senders together. A body that would pass it is
     * written to the payload store as it arrives instead (as a body above the offload threshold is).
     * An in-memory body is copied a few times on its way to a commit (the writer thread, SQLite,
     * the export): measured, each MB of this share cost ~3 MB of RSS at peak, so it is a sixteenth
     * of the container (32 MB of a 512 MB run).
     */
    readonly bodyBytes: number;
    /**
     * What one streamed export (a HAR document, a live-stream resume page) reads from storage before
     * it writes and waits for its reader: the batch is cut by bytes, never by a count of events.
     */
    readonly batchBytes: number;
    /**
     * Stored bytes one dataset export batch reads (bodies and envelopes): 8 MB, less in a container
     * under 512 MB. A batch is converted and pushed whole, so it is held a few times over.
     */
    readonly exportBytes: number;
    /**
     * The webhooks' own answers (`response`, each counted as its JSON's bytes), all webhooks
     * together: the manager holds every one in memory. A sixteenth of the container (64 MB of 1 GB);
     * a POST or PATCH that would pass it is refused (413).
     */
    readonly answerBytes: number;
}

const MB = 1024 * 1024;
/** The platform's default run memory, used when ACTOR_MEMORY_MBYTES is unset. */
export const DEFAULT_MEMORY_MBYTES = 1024;

/** The budget of a container of `mbytes` MB. */
export function memoryBudget(mbytes: number = DEFAULT_MEMORY_MBYTES): MemoryBudget {
    const totalBytes = Math.max(128, mbytes) * MB;
    return Object.freeze({
        totalBytes,
        bodyBytes: Math.floor(totalBytes / 16),
        batchBytes: Math.max(MB, Math.floor(totalBytes / 256)),
        exportBytes: Math.min(8 * MB, Math.floor(totalBytes / 64)),
        answerBytes: Math.floor(totalBytes / 16),
    });
}
