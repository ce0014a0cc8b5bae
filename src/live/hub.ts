import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { LiveFeed } from '../storage/roles.js';
import type { LogEntry, NewEvent } from '../storage/types.js';
import { LIVE_BODY_LIMIT, liveEntry, truncateBody } from './entry.js';
import { frameOf, resume } from './resume.js';

/** Limits of the live feed; the defaults are the spec's. */
export interface LiveOptions {
    /** Concurrent clients (spec: 100). */
    maxClients: number;
    /** Comment frame interval (spec: 30 s). */
    heartbeatMs: number;
    /** Bytes a client may leave unread before it is dropped. */
    maxBufferedBytes: number;
    /** Missed events sent on a Last-Event-ID resume. */
    resumeLimit: number;
    /** Unread bytes a resume leaves in a client's socket before it waits for the reader (the memory budget's batch). */
    resumeBatchBytes?: number;
}

/** The spec's limits, and a buffer of 4 MB (several seconds of frames at 1,000 events/s). */
export const LIVE_DEFAULTS: LiveOptions = { maxClients: 100, heartbeatMs: 30_000, maxBufferedBytes: 4 * 1024 * 1024, resumeLimit: 1000 };

interface Client {
    res: ServerResponse;
    /** True while a Last-Event-ID resume pages from storage: live frames wait in storage, not in memory. */
    resuming: boolean;
    /** Ids already sent from storage on resume, so their live frames are not sent twice. */
    resumed: Set<string> | undefined;
    /** Until when (ms) `resumed` is kept: the feed may publish events the resume already sent. */
    resumedUntil: number;
    /** Live frames kept while the resume reads its last page (see resume.ts), and their size. */
    held: { id: string; frame: string }[] | undefined;
    heldBytes: number;
}

/** How long ids sent on resume are still checked against live frames. */
const RESUMED_GRACE_MS = 5_000;
/** Entries the feed reads in one query, and queries in flight at once (bodies over 64 KB are never read). */
const FEED_BATCH = 32;
const FEED_PARALLEL = 4;
/** Attempts to read a batch of the feed before its clients are told to resume instead. */
const FEED_ATTEMPTS = 3;

/** The headers of a live stream (HEAD /log-stream sends them too). */
export const SSE_HEADERS = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // no-transform: proxies must not compress or buffer the stream.
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
};


/**
 * The live feed: each committed event reaches every connected client as one `id:`/`data:` frame, in
 * commit order. With one process the ingest handler publishes each event as it commits; with a
 * shared database (`feed.ordersLive`) only the storage feed does, for this instance's captures too,
 * so local and foreign captures interleave as they committed and Last-Event-ID resumes without a
 * gap on any instance. Every connected client gets
 * one `id:`/`data:` frame for it. A frame is serialized once for all clients, and the frames of one
 * event-loop turn go out in one write per client. Writes never wait: a client whose unread bytes
 * pass `maxBufferedBytes` is dropped, so a stalled reader costs bounded memory and delays nobody.
 */
export class LiveHub {
    private readonly clients = new Set<Client>();
    private pending: { id: string; frame: string }[] = [];
    private flushScheduled = false;
    private readonly heartbeat: NodeJS.Timeout;
    private readonly unsubscribe: () => void;
    /** Batches of the storage feed are published one after another, in the feed's order. */
    private feedTurn: Promise<void> = Promise.resolve();
    /** Whether the storage feed carries every event (a shared database); `publish` is ignored then. */
    private readonly ordered: boolean;
    /** Clients dropped for not reading. */
    dropped = 0;

    constructor(private readonly storage: { feed: LiveFeed }, private readonly baseUrl: () => string, private readonly log: Logger, private readonly options: LiveOptions = LIVE_DEFAULTS) {
        this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), options.heartbeatMs);
        this.heartbeat.unref();
        this.ordered = storage.feed.ordersLive;
        // A shared database: every commit, in commit order. Otherwise only other instances' commits
        // (none with one process), after the local ones ingest publishes.
        this.unsubscribe = this.ordered ? storage.feed.onCommitted((ids) => this.fromFeed(ids)) : storage.feed.onForeignEvents((ids) => this.fromFeed(ids));
    }

    /** Connected clients. */
    get size(): number {
        return this.clients.size;
    }

    /** Queues the frame of a committed event for every client; a no-op when the storage feed orders the stream. */
    publish(event: NewEvent): void {
        if (this.ordered || this.clients.size === 0) return;
        this.queue(event.id, frameOf(event.id, liveEntry(event, this.baseUrl())));
    }

    /** Queues the frame of a stored entry (read back from the storage feed). */
    publishEntry(entry: LogEntry): void {
        if (this.clients.size === 0) return;
        this.queue(entry.id, frameOf(entry.id, truncateBody(entry, this.baseUrl())));
    }

    private queue(id: string, frame: string): void {
        this.pending.push({ id, frame });
        if (!this.flushScheduled) {
            this.flushScheduled = true;
            setImmediate(() => this.flush());
        }
    }

    /**
     * Starts a stream on `res`: `: connected`, then (with `lastEventId`) what was missed, paged from
     * storage in capture order at the pace the client reads (resume.ts), then live frames. Throws 503
     * when the client limit is reached.
     */
    connect(res: ServerResponse, lastEventId: string | undefined): void {
        this.assertRoom();
        res.socket?.setNoDelay(true);
        res.writeHead(200, SSE_HEADERS);
        const resuming = lastEventId !== undefined && lastEventId !== '';
        const client: Client = { res, resuming, resumed: undefined, resumedUntil: 0, held: undefined, heldBytes: 0 };
        this.clients.add(client);
        res.on('close', () => this.clients.delete(client));
        this.write(client, ': connected\n\n');
        if (!resuming) return;
        const { maxBufferedBytes, resumeLimit, resumeBatchBytes = 1024 * 1024 } = this.options;
        // The resume never fills more than a quarter of the slow-reader allowance, so the live frames
        // that follow it are not cut for a backlog the resume itself left in the socket.
        const slackBytes = Math.max(64 * 1024, Math.min(resumeBatchBytes, Math.floor(maxBufferedBytes / 4)));
        const hold = (): void => {
            client.held ??= [];
        };
        const goLive = (sent: Set<string>): void => {
            // Held frames storage did not send committed after its last read: they follow it, in order.
            const fresh = (client.held ?? []).filter((p) => !sent.has(p.id));
            client.held = undefined;
            client.heldBytes = 0;
            client.resumed = sent;
            client.resumedUntil = Date.now() + RESUMED_GRACE_MS;
            client.resuming = false;
            if (fresh.length > 0) this.write(client, fresh.map((p) => p.frame).join(''));
        };
        resume(res, lastEventId, { feed: this.storage.feed, baseUrl: this.baseUrl(), limit: resumeLimit, slackBytes, settle: () => this.settle(), hold, goLive }).catch((error: unknown) => {
            this.log.warn('live-stream resume failed', { error: String(error) });
            res.destroy();
        });
    }

    /** Resolves once every event committed so far is published (the storage feed read and its batches out). */
    private async settle(): Promise<void> {
        if (!this.ordered) return;
        await this.storage.feed.caughtUp();
        await this.feedTurn.catch(() => undefined);
    }

    /** Throws the spec's 503 when no client slot is free. */
    assertRoom(): void {
        if (this.clients.size >= this.options.maxClients) {
            throw new AppError(503, `Maximum concurrent SSE client limit reached (${this.options.maxClients})`);
        }
    }

    /** Ends every stream (shutdown), so the server can close. */
    close(): void {
        clearInterval(this.heartbeat);
        this.unsubscribe();
        for (const client of this.clients) client.res.end();
        this.clients.clear();
    }

    private flush(): void {
        this.flushScheduled = false;
        const pending = this.pending;
        this.pending = [];
        if (pending.length === 0) return;
        // Encoded once for every client, not once per write.
        const all = Buffer.from(pending.length === 1 ? pending[0]!.frame : pending.map((p) => p.frame).join(''), 'utf8');
        for (const client of this.clients) {
            // A resuming client reads these from storage when its resume gets to them, unless it
            // holds them while its last page is read.
            if (client.resuming) {
                if (client.held) this.hold(client, pending, all.length);
                continue;
            }
            if (client.resumed === undefined) {
                this.write(client, all);
                continue;
            }
            const fresh = pending.filter((p) => !client.resumed!.has(p.id));
            // Events publish in commit order: once one arrives that storage did not send, later ones
            // are new too. The ids are kept a few seconds all the same (a feed that lags the resume
            // publishes ids it sent after that).
            if (fresh.length > 0) {
                if (Date.now() > client.resumedUntil) client.resumed = undefined;
                this.write(client, fresh.length === pending.length ? all : fresh.map((p) => p.frame).join(''));
            }
        }
    }

    /** Keeps frames for a client whose resume reads its last page; one that holds too much is dropped like a slow reader. */
    private hold(client: Client, frames: { id: string; frame: string }[], bytes: number): void {
        client.held!.push(...frames);
        client.heldBytes += bytes;
        if (client.heldBytes > this.options.maxBufferedBytes) {
            this.dropped++;
            this.clients.delete(client);
            this.log.warn('dropping a live-stream client whose resume fell too far behind', { heldBytes: client.heldBytes });
            client.res.destroy();
        }
    }

    /**
     * Reads the entries of a feed batch and publishes them in the feed's order, a few queries in
     * flight at once. A batch that cannot be read (the database is away) ends every stream after a
     * few tries: each client reconnects with Last-Event-ID and its resume sends what it missed.
     */
    private fromFeed(ids: string[]): void {
        if (this.clients.size === 0) return;
        this.feedTurn = this.feedTurn.then(async () => {
            for (let i = 0; i < ids.length && this.clients.size > 0; i += FEED_BATCH * FEED_PARALLEL) {
                const reads: Promise<LogEntry[] | undefined>[] = [];
                for (let j = i; j < Math.min(ids.length, i + FEED_BATCH * FEED_PARALLEL); j += FEED_BATCH) reads.push(this.read(ids.slice(j, j + FEED_BATCH)));
                for (const entries of await Promise.all(reads)) {
                    if (entries === undefined) return this.restartStreams();
                    for (const entry of entries) this.publishEntry(entry);
                }
            }
        });
    }

    /** One batch of entries (deleted ones left out); undefined when it could not be read. */
    private async read(ids: string[]): Promise<LogEntry[] | undefined> {
        for (let attempt = 1; ; attempt++) {
            try {
                return await this.storage.feed.entriesOf(ids, LIVE_BODY_LIMIT);
            } catch (error) {
                if (attempt >= FEED_ATTEMPTS) {
                    this.log.warn('live feed: could not read committed events; streams end so clients resume', { error: String(error) });
                    return undefined;
                }
                await new Promise((r) => setTimeout(r, 300 * attempt));
            }
        }
    }

    /** Ends every stream: a client that missed events must resume from its Last-Event-ID. */
    private restartStreams(): void {
        for (const client of this.clients) client.res.destroy();
        this.clients.clear();
    }

    private broadcast(text: string): void {
        const bytes = Buffer.from(text, 'utf8');
        for (const client of this.clients) if (!client.resuming) this.write(client, bytes);
    }

    private write(client: Client, text: string | Buffer): void {
        const { res } = client;
        if (res.destroyed) return;
        res.write(text);
        if (res.writableLength > this.options.maxBufferedBytes) {
            this.dropped++;
            this.clients.delete(client);
            this.log.warn('dropping a live-stream client that stopped reading', { bufferedBytes: res.writableLength });
            res.destroy();
        }
    }
}
