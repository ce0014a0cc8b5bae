import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { LogEntry } from '../api/capture.js';
import type { Dispatcher } from './dispatch.js';
import { FatalError } from './errors.js';
import type { Finder } from './finder.js';
import { readAll } from './http.js';
import type { Output, Progress } from './output.js';
import { errorOf, type ServiceClient } from './service.js';
import { sseMessages } from './sse.js';
import { backoffMs, sleep } from './time.js';

/**
 * Where the stream picks up: after a capture (Last-Event-ID), or at a capture time, from the first
 * matching capture GET /logs lists at or after it (other than `skip`). The second serves a first
 * start (`oldest`, or `now` before anything matched), a Last-Event-ID the service no longer knows
 * (the capture was deleted), and a resume the service could not finish.
 */
export type Position = { kind: 'after'; id: string; ts: number } | { kind: 'at'; ts: number; skip?: string | undefined };

/** Two 30 s heartbeats missed, and some slack: the connection is dead. */
const IDLE_MS = 75_000;
/** As many missed captures as one resume may send: the backlog comes from storage in commit order. */
const RESUME_LIMIT = '10000000';

/** What a session works with. */
export interface SessionDeps {
    service: ServiceClient;
    finder: Finder;
    dispatcher: Dispatcher;
    out: Output;
    progress: Progress;
    signal: AbortSignal;
    /**
     * Whether the first connection counts a backlog. Not for a first start `--from now`: nothing
     * before its start point is missed, and captures sent in the moment between "Ready!" and the
     * stream's opening are what comes next, not a backlog.
     */
    countFirst: boolean;
}

/**
 * The stream side of `listen`: opens GET /log-stream with the filter, resumes with Last-Event-ID,
 * hands each frame to the dispatcher in order (whose free slots pace the reading), and reconnects
 * with backoff whenever the stream drops: a service restart, a network cut, a Standby run ending.
 * `run` resolves when stopped; it rejects with FatalError when the service refuses the key.
 */
export class Session {
    private failures = 0;
    private countBacklog: boolean;
    private current: IncomingMessage | undefined;

    constructor(
        private position: Position,
        private readonly d: SessionDeps,
    ) {
        this.countBacklog = d.countFirst;
        d.signal.addEventListener('abort', () => this.current?.destroy(), { once: true });
    }

    async run(): Promise<void> {
        while (!this.d.signal.aborted) {
            if (this.countBacklog) await this.count();
            const res = await this.connect();
            if (res === undefined) continue;
            this.countBacklog = false;
            const dropped = await this.consume(res);
            if (dropped && !this.d.signal.aborted) {
                this.countBacklog = true;
                await sleep(backoffMs(++this.failures), this.d.signal).catch(() => undefined);
            }
        }
    }

    /** Counts the backlog ahead (GET /logs totals) and starts the catch-up line when there is one. */
    private async count(): Promise<void> {
        const p = this.position;
        try {
            this.d.progress.start(await this.d.finder.countFrom(p.ts, p.kind === 'at'));
        } catch {
            // The service is away: connecting will say so.
        }
    }

    /** Opens the stream from the position; undefined (after a backoff) when it cannot. */
    private async connect(): Promise<IncomingMessage | undefined> {
        const { service, finder, signal, out } = this.d;
        const query = finder.streamQuery();
        query.set('resumeLimit', RESUME_LIMIT);
        // Small bodies come in the frame (`rawBody`): no request per capture for its payload.
        query.set('rawBodies', 'true');
        const headers: OutgoingHttpHeaders = { accept: 'text/event-stream' };
        if (this.position.kind === 'after') headers['last-event-id'] = this.position.id;
        try {
            const res = await service.open('GET', '/log-stream', query, { headers, signal });
            if (res.statusCode === 200) return (this.current = res);
            const error = errorOf(res, (await readAll(res)).toString('utf8'));
            if (error.refused) throw new FatalError(`the service refused the key (${error.message})`);
            throw error;
        } catch (error) {
            if (error instanceof FatalError || signal.aborted) {
                if (!signal.aborted) throw error;
                return undefined;
            }
            out.down('service', service.display, (error as Error).message);
            await sleep(backoffMs(++this.failures), signal).catch(() => undefined);
            return undefined;
        }
    }

    /**
     * Reads the stream until it ends. True when it dropped (reconnect after a backoff); false when the
     * position was moved on purpose (a capture found by time, a resume the service could not finish).
     */
    private async consume(res: IncomingMessage): Promise<boolean> {
        const { out, finder, service } = this.d;
        try {
            for await (const m of sseMessages(res, IDLE_MS)) {
                if (m.kind === 'comment') {
                    if (m.text === 'connected') {
                        this.failures = 0;
                        out.up('service');
                        if (this.position.kind === 'at' && (await this.anchor())) return false;
                    } else if (m.text.startsWith('resume incomplete')) {
                        // The service stopped reading what was missed (an unknown Last-Event-ID, or a long
                        // run of captures the filter skips): find the next match by time instead.
                        const p = this.position;
                        this.position = { kind: 'at', ts: p.ts, skip: p.kind === 'after' ? p.id : p.skip };
                        return false;
                    }
                    continue;
                }
                if (m.id === undefined) continue;
                await this.take(JSON.parse(m.data) as LogEntry);
                if (this.d.signal.aborted) return false;
            }
            if (!this.d.signal.aborted) out.down('service', service.display, 'the stream ended');
        } catch (error) {
            if (!this.d.signal.aborted) out.down('service', service.display, (error as Error).message);
        } finally {
            this.current = undefined;
            res.destroy();
        }
        return true;
    }

    /**
     * At a capture time: the first matching capture from then on is delivered from GET /logs and the
     * stream resumes after it. False when there is none yet: this stream, opened live before the
     * question was asked, carries every capture that comes.
     */
    private async anchor(): Promise<boolean> {
        const p = this.position as Extract<Position, { kind: 'at' }>;
        const found = await this.d.finder.firstFrom(p.ts, p.skip);
        if (found === undefined) return false;
        const entry = await this.d.finder.entry(found.id);
        // Deleted between the two questions: the next one is looked for.
        if (entry !== undefined) await this.take(entry);
        else this.position = { kind: 'at', ts: Date.parse(found.timestamp), skip: found.id };
        return true;
    }

    private async take(entry: LogEntry): Promise<void> {
        const ts = Date.parse(entry.timestamp);
        await this.d.dispatcher.submit(entry.id, ts, this.d.finder.wants(entry.webhookId) ? entry : undefined);
        this.position = { kind: 'after', id: entry.id, ts };
    }
}
