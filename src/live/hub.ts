import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import { compileFilters, readsBody } from '../filters/predicate.js';
import { subjectOfEvent, type FilterSubject } from '../filters/subject.js';
import type { Filter } from '../filters/types.js';
import type { Logger } from '../lib/log.js';
import type { BodyReader, LiveFeed } from '../storage/roles.js';
import type { LogEntry, NewEvent } from '../storage/types.js';
import { LIVE_BODY_LIMIT, liveEntry, rawBodyOfEntry, rawBodyOfEvent, truncateBody } from './entry.js';
import { frameOf, resume, withRawBody, type SentIds } from './resume.js';
import { subjectOfStored } from './subject.js';

/** Limits of the live feed; the defaults are the spec's. */
export interface LiveOptions {
    /** Concurrent clients (spec: 100). */
    maxClients: number;
    /** Comment frame interval (spec: 30 s). */
    heartbeatMs: number;
    /** Bytes a client may leave unread before it is dropped. */
    maxBufferedBytes: number;
    /** Missed events sent on a Last-Event-ID resume, unless the client asks for another number. */
    resumeLimit: number;
    /** Entries a filtered resume reads without sending one before it gives up (default 100,000). */
    resumeMaxSkipped?: number;
    /** Unread bytes a resume leaves in a client's socket before it waits for the reader (the memory budget's batch). */
    resumeBatchBytes?: number;
}

/** The spec's limits, and a buffer of 4 MB (several seconds of frames at 1,000 events/s). */
export const LIVE_DEFAULTS: LiveOptions = { maxClients: 100, heartbeatMs: 30_000, maxBufferedBytes: 4 * 1024 * 1024, resumeLimit: 1000 };

/** What one client asks of the stream. */
export interface StreamRequest {
    /** Resume after this event id (Last-Event-ID). */
    lastEventId?: string | undefined;
    /** Only captures these filters (those of GET /logs) accept; none or empty: every capture. */
    filters?: readonly Filter[];
    /** The most missed events a resume sends; the hub's `resumeLimit` when absent. */
    resumeLimit?: number | undefined;
    /** Frames carry `rawBody`, the payload's bytes (entry.ts rawBodyOfEvent): `?rawBodies=true`. */
    rawBodies?: boolean | undefined;
}

/** One event's frame, serialized once for every client, and what the clients' filters read of it. */
interface Frame {
    id: string;
    frame: string;
    subject: FilterSubject;
    /** The frame with `rawBody`, built only while a client asks for raw bodies (and only when there is one). */
    raw?: string | undefined;
}

interface Client {
    res: ServerResponse;
    /** The client's filters as one predicate; undefined: every capture. */
    match: ((s: FilterSubject) => boolean) | undefined;
    /** Whether its filters read the body's text (a body the feed left unread is then read for it). */
    readsBody: boolean;
    /** Whether it takes frames with `rawBody`. */
    rawBodies: boolean;
    /** True while a Last-Event-ID resume pages from storage: live frames wait in storage, not in memory. */
    resuming: boolean;
    /** Ids already sent from storage on resume, so their live frames are not sent twice. */
    resumed: SentIds | undefined;
    /** Until when (ms) `resumed` is kept: the feed may publish events the resume already sent. */
    resumedUntil: number;
    /** Live frames kept while the resume reads its last page (see resume.ts), and their size. */
    held: Frame[] | undefined;
    heldBytes: number;
}

/** The text of frames for a client: with `rawBody` where it asked for them and the frame has one. */
const textOf = (client: Client, frames: readonly Frame[]): string => frames.map((p) => (client.rawBodies && p.raw !== undefined ? p.raw : p.frame)).join('');

/** How long ids sent on resume are still checked against live frames. */
const RESUMED_GRACE_MS = 5_000;
/** Entries the feed reads in one query, and queries in flight at once (bodies over 64 KB are never read). */
const FEED_BATCH = 32;
const FEED_PARALLEL = 4;
/** Attempts to read a batch of the feed before its clients are told to resume instead. */
const FEED_ATTEMPTS = 3;
/** Entries a filtered resume reads without sending one before it says `: resume incomplete`. */
const RESUME_MAX_SKIPPED = 100_000;

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
 * gap on any instance. Every connected client whose filters
 * accept the event (compiled once per client; the event's subject built once and shared) gets one
 * `id:`/`data:` frame for it. A frame is serialized once for all clients, and the frames of one
 * event-loop turn go out in one write per client. Writes never wait: a client whose unread bytes
 * pass `maxBufferedBytes` is dropped, so a stalled reader costs bounded memory and delays nobody.
 */
export class LiveHub {
    private readonly clients = new Set<Client>();
    private pending: Frame[] = [];
    private flushScheduled = false;
    private readonly heartbeat: NodeJS.Timeout;
    private readonly unsubscribe: () => void;
    /** Batches of the storage feed are published one after another, in the feed's order. */
    private feedTurn: Promise<void> = Promise.resolve();
    /** Whether the storage feed carries every event (a shared database); `publish` is ignored then. */
    private readonly ordered: boolean;
    /** Clients dropped for not reading. */
    dropped = 0;
    /** Connected clients that take raw bodies: while there is none, no frame is built twice. */
    private rawClients = 0;

    constructor(private readonly storage: { feed: LiveFeed; bodies: Pick<BodyReader, 'getBody'> }, private readonly baseUrl: () => string, private readonly log: Logger, private readonly options: LiveOptions = LIVE_DEFAULTS) {
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
        const entry = liveEntry(event, this.baseUrl());
        this.queue(event.id, frameOf(event.id, entry), subjectOfEvent(event), this.rawFrame(entry, () => rawBodyOfEvent(event)));
    }

    /** Queues the frame of a stored entry (read back from the storage feed), with the subject its filters read. */
    private publishEntry(entry: LogEntry, subject: FilterSubject): void {
        if (this.clients.size === 0) return;
        const shown = truncateBody(entry, this.baseUrl());
        this.queue(entry.id, frameOf(entry.id, shown), subject, this.rawFrame(shown, () => rawBodyOfEntry(entry)));
    }

    /** The frame with `rawBody`, while some client takes raw bodies and the event has one; else undefined. */
    private rawFrame(shown: LogEntry, rawBody: () => string | undefined): string | undefined {
        if (this.rawClients === 0) return undefined;
        const raw = rawBody();
        return raw === undefined ? undefined : frameOf(shown.id, withRawBody(shown, raw));
    }

    private queue(id: string, frame: string, subject: FilterSubject, raw?: string): void {
        this.pending.push({ id, frame, subject, raw });
        if (!this.flushScheduled) {
            this.flushScheduled = true;
            setImmediate(() => this.flush());
        }
    }

    /**
     * Starts a stream on `res`: `: connected`, then (with `lastEventId`) what was missed, paged from
     * storage in capture order at the pace the client reads (resume.ts), then live frames; with
     * `filters`, only the captures they accept, live and on resume. Throws 503 when the client limit
     * is reached.
     */
    connect(res: ServerResponse, request: StreamRequest = {}): void {
        this.assertRoom();
        const { lastEventId, filters = [] } = request;
        res.socket?.setNoDelay(true);
        res.writeHead(200, SSE_HEADERS);
        const resuming = lastEventId !== undefined && lastEventId !== '';
        const match = filters.length > 0 ? this.predicate(filters) : undefined;
        const rawBodies = request.rawBodies === true;
        const client: Client = { res, match, readsBody: readsBody(filters), rawBodies, resuming, resumed: undefined, resumedUntil: 0, held: undefined, heldBytes: 0 };
        this.clients.add(client);
        if (rawBodies) this.rawClients++;
        res.on('close', () => {
            this.clients.delete(client);
            if (rawBodies) this.rawClients--;
        });
        this.write(client, ': connected\n\n');
        if (!resuming) return;
        const { maxBufferedBytes, resumeLimit, resumeMaxSkipped = RESUME_MAX_SKIPPED, resumeBatchBytes = 1024 * 1024 } = this.options;
        // The resume never fills more than a quarter of the slow-reader allowance, so the live frames
        // that follow it are not cut for a backlog the resume itself left in the socket.
        const slackBytes = Math.max(64 * 1024, Math.min(resumeBatchBytes, Math.floor(maxBufferedBytes / 4)));
        const hold = (): void => {
            client.held ??= [];
        };
        const goLive = (sent: SentIds): void => {
            // Held frames storage did not send committed after its last read: they follow it, in order.
            const fresh = (client.held ?? []).filter((p) => !sent.has(p.id));
            client.held = undefined;
            client.heldBytes = 0;
            client.resumed = sent;
            client.resumedUntil = Date.now() + RESUMED_GRACE_MS;
            client.resuming = false;
            if (fresh.length > 0) this.write(client, textOf(client, fresh));
        };
        const accepts = match && (async (entry: LogEntry): Promise<boolean> => match(await subjectOfStored(entry, this.storage.bodies, client.readsBody)));
        const limit = request.resumeLimit ?? resumeLimit;
        resume(res, lastEventId, { feed: this.storage.feed, baseUrl: this.baseUrl(), limit, ...(accepts ? { accepts } : {}), maxSkipped: resumeMaxSkipped, rawBodies, slackBytes, settle: () => this.settle(), hold, goLive }).catch(
            (error: unknown) => {
                this.log.warn('live-stream resume failed', { error: String(error) });
                res.destroy();
            },
        );
    }

    /** A client's filters as a predicate that never throws: a capture it cannot judge is left out (and logged once). */
    private predicate(filters: readonly Filter[]): (s: FilterSubject) => boolean {
        const match = compileFilters(filters);
        let logged = false;
        return (s) => {
            try {
                return match(s);
            } catch (error) {
                if (!logged) this.log.warn('live-stream filter failed on a capture; it is left out', { id: s.id, error: String(error) });
                logged = true;
                return false;
            }
        };
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
        // Encoded once for every client that takes them all, not once per write.
        const all = Buffer.from(pending.length === 1 ? pending[0]!.frame : pending.map((p) => p.frame).join(''), 'utf8');
        for (const client of this.clients) {
            // A filtered client takes the frames its filters accept; each event's subject is shared by all.
            const mine = client.match ? pending.filter((p) => client.match!(p.subject)) : pending;
            // A resuming client reads these from storage when its resume gets to them, unless it
            // holds them while its last page is read.
            if (client.resuming) {
                if (client.held) this.hold(client, mine, mine === pending ? all.length : mine.reduce((n, p) => n + p.frame.length, 0));
                continue;
            }
            if (mine.length === 0) continue;
            if (client.resumed === undefined) {
                this.write(client, mine.length === pending.length && !client.rawBodies ? all : textOf(client, mine));
                continue;
            }
            const fresh = mine.filter((p) => !client.resumed!.has(p.id));
            // Events publish in commit order: once one arrives that storage did not send, later ones
            // are new too. The ids are kept a few seconds all the same (a feed that lags the resume
            // publishes ids it sent after that).
            if (fresh.length > 0) {
                if (Date.now() > client.resumedUntil) client.resumed = undefined;
                this.write(client, fresh.length === pending.length && !client.rawBodies ? all : textOf(client, fresh));
            }
        }
    }

    /** Keeps frames for a client whose resume reads its last page; one that holds too much is dropped like a slow reader. */
    private hold(client: Client, frames: Frame[], bytes: number): void {
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
                    const subjects = entries && (await this.subjectsOf(entries));
                    if (entries === undefined || subjects === undefined) return this.restartStreams();
                    entries.forEach((entry, k) => this.publishEntry(entry, subjects[k]!));
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

    /**
     * The filter subjects of a batch read back. A body the read left out (over 64 KB) is read on its
     * own only while a client filters on the body; undefined when that read fails (streams then end,
     * as when the batch itself cannot be read).
     */
    private async subjectsOf(entries: LogEntry[]): Promise<FilterSubject[] | undefined> {
        const needsBody = [...this.clients].some((c) => c.readsBody);
        try {
            const subjects: FilterSubject[] = [];
            for (const entry of entries) subjects.push(await subjectOfStored(entry, this.storage.bodies, needsBody));
            return subjects;
        } catch (error) {
            this.log.warn('live feed: could not read a body a stream filter needs; streams end so clients resume', { error: String(error) });
            return undefined;
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
