import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { EventStore } from '../storage/event-store.js';
import type { NewEvent } from '../storage/types.js';
import { liveEntry, truncateBody } from './entry.js';

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
}

/** The spec's limits, and a buffer of 4 MB (several seconds of frames at 1,000 events/s). */
export const LIVE_DEFAULTS: LiveOptions = { maxClients: 100, heartbeatMs: 30_000, maxBufferedBytes: 4 * 1024 * 1024, resumeLimit: 1000 };

interface Client {
    res: ServerResponse;
    /** Ids already sent from storage on resume, so their live frames are not sent twice. */
    resumed: Set<string> | undefined;
}

/** The headers of a live stream (HEAD /log-stream sends them too). */
export const SSE_HEADERS = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // no-transform: proxies must not compress or buffer the stream.
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
};

const frameOf = (id: string, data: unknown): string => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * The live feed: the ingest handler publishes each committed event; every connected client gets
 * one `id:`/`data:` frame for it. A frame is serialized once for all clients, and the frames of one
 * event-loop turn go out in one write per client. Writes never wait: a client whose unread bytes
 * pass `maxBufferedBytes` is dropped, so a stalled reader costs bounded memory and delays nobody.
 */
export class LiveHub {
    private readonly clients = new Set<Client>();
    private pending: { id: string; frame: string }[] = [];
    private flushScheduled = false;
    private readonly heartbeat: NodeJS.Timeout;
    /** Clients dropped for not reading. */
    dropped = 0;

    constructor(private readonly store: EventStore, private readonly baseUrl: () => string, private readonly log: Logger, private readonly options: LiveOptions = LIVE_DEFAULTS) {
        this.heartbeat = setInterval(() => this.broadcast(': heartbeat\n\n'), options.heartbeatMs);
        this.heartbeat.unref();
    }

    /** Connected clients. */
    get size(): number {
        return this.clients.size;
    }

    /** Queues the frame of a committed event for every client. */
    publish(event: NewEvent): void {
        if (this.clients.size === 0) return;
        this.pending.push({ id: event.id, frame: frameOf(event.id, liveEntry(event, this.baseUrl())) });
        if (!this.flushScheduled) {
            this.flushScheduled = true;
            setImmediate(() => this.flush());
        }
    }

    /**
     * Starts a stream on `res`: `: connected`, then (with `lastEventId`) what was missed, from storage
     * in capture order, then live frames. Throws 503 when the client limit is reached.
     */
    connect(res: ServerResponse, lastEventId: string | undefined): void {
        this.assertRoom();
        res.socket?.setNoDelay(true);
        res.writeHead(200, SSE_HEADERS);
        let opening = ': connected\n\n';
        const client: Client = { res, resumed: undefined };
        if (lastEventId !== undefined && lastEventId !== '') {
            // Read synchronously, so no event can be published between this read and the registration below.
            const missed = this.store.entriesAfter(lastEventId, this.options.resumeLimit + 1);
            if (missed === undefined || missed.length > this.options.resumeLimit) opening += ': resume incomplete, page /logs\n\n';
            const sent = (missed ?? []).slice(0, this.options.resumeLimit);
            client.resumed = new Set(sent.map((e) => e.id));
            const base = this.baseUrl();
            for (const entry of sent) opening += frameOf(entry.id, truncateBody(entry, base));
            // Frames already queued for this turn and already sent from storage must not repeat.
            for (const p of this.pending) client.resumed.add(p.id);
        }
        this.clients.add(client);
        res.on('close', () => this.clients.delete(client));
        this.write(client, opening);
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
            if (client.resumed === undefined) {
                this.write(client, all);
                continue;
            }
            const fresh = pending.filter((p) => !client.resumed!.has(p.id));
            // Events publish in commit order: once one arrives that storage did not send, all later ones are new too.
            if (fresh.length > 0) {
                client.resumed = undefined;
                this.write(client, fresh.map((p) => p.frame).join(''));
            }
        }
    }

    private broadcast(text: string): void {
        const bytes = Buffer.from(text, 'utf8');
        for (const client of this.clients) this.write(client, bytes);
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
