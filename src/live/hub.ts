import type { ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import type { EventStore } from '../storage/event-store.js';
import type { NewEvent } from '../storage/types.js';
import { liveEntry } from './entry.js';
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
}

/** The headers of a live stream (HEAD /log-stream sends them too). */
export const SSE_HEADERS = {
    'Content-Type': 'text/event-stream; charset=utf-8',
    // no-transform: proxies must not compress or buffer the stream.
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
};


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
     * Starts a stream on `res`: `: connected`, then (with `lastEventId`) what was missed, paged from
     * storage in capture order at the pace the client reads (resume.ts), then live frames. Throws 503
     * when the client limit is reached.
     */
    connect(res: ServerResponse, lastEventId: string | undefined): void {
        this.assertRoom();
        res.socket?.setNoDelay(true);
        res.writeHead(200, SSE_HEADERS);
        const resuming = lastEventId !== undefined && lastEventId !== '';
        const client: Client = { res, resuming, resumed: undefined };
        this.clients.add(client);
        res.on('close', () => this.clients.delete(client));
        this.write(client, ': connected\n\n');
        if (!resuming) return;
        const { maxBufferedBytes, resumeLimit, resumeBatchBytes = 1024 * 1024 } = this.options;
        // The resume never fills more than a quarter of the slow-reader allowance, so the live frames
        // that follow it are not cut for a backlog the resume itself left in the socket.
        const slackBytes = Math.max(64 * 1024, Math.min(resumeBatchBytes, Math.floor(maxBufferedBytes / 4)));
        const goLive = (sent: Set<string>): void => {
            // Frames already queued for this turn were committed, so storage sent them (or, past the limit, skipped them).
            for (const p of this.pending) sent.add(p.id);
            client.resumed = sent;
            client.resuming = false;
        };
        resume(res, lastEventId, { store: this.store, baseUrl: this.baseUrl(), limit: resumeLimit, slackBytes, goLive }).catch((error: unknown) => {
            this.log.warn('live-stream resume failed', { error: String(error) });
            res.destroy();
        });
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
            // A resuming client reads these from storage when its resume gets to them.
            if (client.resuming) continue;
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
