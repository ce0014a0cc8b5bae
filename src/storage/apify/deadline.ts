import { AsyncLocalStorage } from 'node:async_hooks';
import type { ApifyClient } from 'apify-client';
import { AppError } from '../../errors.js';

/**
 * The rule for every Apify API call that can hold up the service (export, payload upload and read,
 * webhook records): it may take `baseMs`, plus one second per MIN_RATE bytes it moves. The API
 * client's own timeout is no bound: it is a socket inactivity timer (30 s doubling to 360 s, up to
 * 8 retries), so a peer that never answers holds an attempt for minutes and one that drips a byte
 * a second holds it forever.
 *
 * Why size-scaled rather than one figure: a payload upload is up to 100 MB, streamed, and must not
 * be cut for being large. 1 MB/s is far below what a container reaches the API at (tens of MB/s in
 * the same region), and a drip of bytes never earns more time than its bytes are worth:
 * - a request body given whole (a dataset push, a JSON record) counts its length, each time it is
 *   sent: a push of an 8 MB export batch may take 30 + 8 = 38 s;
 * - a streamed payload upload counts the file's size: 100 MB may take 30 + 100 = 130 s per attempt
 *   (its own schedule retries it);
 * - a dataset read counts the most one may bring (8 MB: 38 s); a payload read counts the bytes as
 *   they arrive, so it may last as long as it keeps 1 MB/s.
 * The base is APIFY_CALL_DEADLINE_MS (30 s by default; tests shorten it).
 */
export const MIN_RATE_BYTES_PER_S = 1024 * 1024;
/** The base of every deadline unless APIFY_CALL_DEADLINE_MS says otherwise. */
export const DEFAULT_CALL_DEADLINE_MS = 30_000;
/** Bytes counted for a dataset read: the most one asks for (an export batch, a follower's fetch). */
export const DATASET_READ_BYTES = 8 * 1024 * 1024;

/**
 * An API call ran past its deadline; the request was aborted and may be tried again. A request of
 * ours that needed it (a payload read, a webhook change) gets 503 with Retry-After, not a bare 500.
 */
export class ApiDeadlineError extends AppError {
    constructor(what: string, ms: number) {
        super(503, `The Apify storage call "${what}" did not complete within ${ms} ms; it was aborted, try again`, {}, { 'Retry-After': '5' });
        this.name = 'ApiDeadlineError';
    }
}

/** One call's deadline: a base allowance, extended by the bytes it moves. */
export class CallDeadline {
    private readonly started = Date.now();
    private bytes = 0;
    private timer: NodeJS.Timeout | undefined;
    private readonly controller = new AbortController();

    constructor(private readonly what: string, private readonly baseMs: number, bytes: number) {
        this.bytes = bytes;
        this.arm();
    }

    /** Aborted when the deadline passes, with ApiDeadlineError as the reason. */
    get signal(): AbortSignal {
        return this.controller.signal;
    }

    /** Bytes moved since the start: each earns 1/MIN_RATE s more. */
    moved(bytes: number): void {
        this.bytes += bytes;
    }

    private allowedMs(): number {
        return this.baseMs + Math.ceil((this.bytes / MIN_RATE_BYTES_PER_S) * 1000);
    }

    private arm(): void {
        const left = this.started + this.allowedMs() - Date.now();
        if (left <= 0) {
            this.controller.abort(new ApiDeadlineError(this.what, Date.now() - this.started));
            return;
        }
        // Re-checked when it fires: bytes moved meanwhile may have earned more time.
        this.timer = setTimeout(() => this.arm(), left);
        this.timer.unref();
    }

    /** Stops the timer once the call settled. */
    done(): void {
        clearTimeout(this.timer);
    }
}

/** The deadline of the call in progress, seen by the client's request interceptor. */
const current = new AsyncLocalStorage<CallDeadline>();

const installed = new WeakSet<ApifyClient>();
/**
 * Whether any client carries the interceptor. Until one does, calls run outside the async context:
 * a first AsyncLocalStorage.run turns on promise hooks for the whole process, and only the
 * interceptor needs the context. Measured locally (bench/pipeline-threads.mjs plain): capture-thread
 * CPU per ingest request 105–110 µs with the hooks on, 78–89 µs without (the build before: 77–90).
 */
let anyInstalled = false;

/**
 * Makes every request of `client` abortable by the call that started it. Once a call's deadline
 * passes its request is aborted (the socket closed), and the client's next retry, if any, fails at
 * once with the deadline error, which the client does not retry.
 */
export function installDeadlines(client: ApifyClient): void {
    if (installed.has(client)) return;
    installed.add(client);
    anyInstalled = true;
    client.httpClient.axios.interceptors.request.use((config) => {
        const deadline = current.getStore();
        if (!deadline) return config;
        if (deadline.signal.aborted) throw deadline.signal.reason;
        // Runs before the client's own interceptors: the body as given (a stream counts as nothing here).
        const { data } = config as { data?: unknown };
        if (typeof data === 'string' || Buffer.isBuffer(data)) deadline.moved(data.length);
        config.signal = deadline.signal;
        return config;
    });
}

/** Deadlines of one kind of call: the base from configuration. */
export class Deadlines {
    constructor(readonly baseMs: number = DEFAULT_CALL_DEADLINE_MS) {}

    /**
     * Runs `call` under a deadline of `baseMs` plus `bytes` at the minimum rate; `call` may report
     * more bytes moved through the deadline it gets. Rejects with ApiDeadlineError when it expires.
     */
    async run<T>(what: string, bytes: number, call: (deadline: CallDeadline) => Promise<T>): Promise<T> {
        const deadline = new CallDeadline(what, this.baseMs, bytes);
        const { signal } = deadline;
        let onAbort: (() => void) | undefined;
        const expired = new Promise<never>((_, reject) => {
            onAbort = () => reject(signal.reason as Error);
            signal.addEventListener('abort', onAbort, { once: true });
        });
        try {
            const running = anyInstalled ? current.run(deadline, () => call(deadline)) : call(deadline);
            return await Promise.race([running, expired]);
        } finally {
            deadline.done();
            signal.removeEventListener('abort', onAbort!);
            // The call may settle later with the abort: nobody waits for it any more.
            expired.catch(() => undefined);
        }
    }
}
