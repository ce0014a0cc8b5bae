import pg from 'pg';
import type { Logger } from '../../lib/log.js';
import type { LiveFeed } from '../roles.js';
import { isConnectionError, prepared } from './pool.js';
import { EVENTS_CHANNEL } from './schema.js';

/** Timing of the feed; tests may shorten it. */
export interface PgFeedOptions {
    /** Reads without a notification this often, in case one was lost (ms). */
    pollMs?: number;
    /** Longest wait between reconnect attempts (ms); the wait doubles from 100 ms up to it. */
    maxBackoffMs?: number;
    /** A read on the feed's connection taking longer than this counts as a lost connection (ms). */
    readTimeoutMs?: number;
}

const BATCH = 1000;
const READ = prepared('whd_feed_read', 'SELECT seq, id, origin FROM events_all WHERE seq > $1 AND seq <= $1::bigint + 1099511627776 ORDER BY seq LIMIT $2');
type Listener = (ids: string[]) => void;
/** seq is a number with the service's pool (int8 parsed), a string with the driver's default. */
type FeedRow = { seq: string | number; id: string; origin: string | null };

/**
 * Every event committed, in commit order, for the live hub (`onCommitted`, this instance's too: the
 * hub streams only these, so a stream never shows a later commit before an earlier one), and the
 * other instances' ones alone (`onForeignEvents`). A connection of its own LISTENs for the
 * commits' NOTIFY and then reads `events` after the last position it saw, as it does every second
 * and after each reconnect (a notification may be lost while the connection is down). Starts at the
 * newest event when it starts; never throws out of its handlers; reconnects by itself.
 */
export class PgFeed implements Pick<LiveFeed, 'onForeignEvents' | 'onCommitted' | 'caughtUp'> {
    private readonly listeners = new Set<Listener>();
    /** Listeners of other channels this connection LISTENs to (notices: called with no ids). */
    private readonly notices = new Map<string, Set<Listener>>();
    private readonly committed = new Set<Listener>();
    /** caughtUp() calls waiting for the feed to pass a position. */
    private waiters: { seq: number; done: () => void }[] = [];
    private readonly pollMs: number;
    private readonly maxBackoffMs: number;
    private readonly readTimeoutMs: number;
    private client: pg.Client | undefined;
    /** The last event position read (its events handed out or skipped as our own). */
    private last: number | undefined;
    private backoff = 100;
    private poll: NodeJS.Timeout | undefined;
    private retry: NodeJS.Timeout | undefined;
    private reading = false;
    private again = false;
    private closed = false;
    private down = false;

    constructor(private readonly pool: pg.Pool, private readonly instanceId: string, private readonly log: Logger, options: PgFeedOptions = {}) {
        this.pollMs = options.pollMs ?? 1000;
        this.maxBackoffMs = options.maxBackoffMs ?? 2000;
        this.readTimeoutMs = options.readTimeoutMs ?? 5000;
    }

    /** Connects and starts following; a database that is away is retried in the background. */
    async start(): Promise<void> {
        this.poll = setInterval(() => this.wake(), this.pollMs);
        this.poll.unref();
        await this.connect();
    }

    onForeignEvents(listener: Listener): () => void {
        this.listeners.add(listener);
        return () => void this.listeners.delete(listener);
    }

    /** Resolves once every event committed before the call has been handed out (3 s at most). */
    async caughtUp(): Promise<void> {
        let target: number;
        try {
            const { rows } = await this.pool.query<{ seq: string | number }>('SELECT COALESCE(max(seq), 0) AS seq FROM events_all');
            target = Number(rows[0]?.seq ?? 0);
        } catch {
            return;
        }
        if (this.closed || (this.last ?? 0) >= target) return;
        await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 3000);
            this.waiters.push({ seq: target, done: () => (clearTimeout(timer), resolve()) });
            this.wake();
        });
    }

    /**
     * Calls `listener` on each notification of `channel` (a name of letters, digits and `_`), heard on
     * the feed's connection from the next (re)connect on; returns the unsubscribe.
     */
    onNotice(channel: string, listener: () => void): () => void {
        if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
        let set = this.notices.get(channel);
        if (!set) {
            this.notices.set(channel, (set = new Set()));
            // Listening from now on the current connection too; a new connection listens as it connects.
            this.client?.query(`LISTEN ${channel}`).catch(() => undefined);
        }
        set.add(listener);
        return () => void set.delete(listener);
    }

    onCommitted(listener: Listener): () => void {
        this.committed.add(listener);
        return () => void this.committed.delete(listener);
    }

    /** Stops following and closes the connection. */
    async close(): Promise<void> {
        this.closed = true;
        clearInterval(this.poll);
        clearTimeout(this.retry);
        this.listeners.clear();
        this.committed.clear();
        this.notices.clear();
        const client = this.client;
        this.client = undefined;
        await client?.end().catch(() => undefined);
    }

    private async connect(): Promise<void> {
        if (this.closed) return;
        // The pool's settings (address, timeouts, type parsers), on a connection the pool does not own.
        const client = new pg.Client({ ...this.pool.options, keepAlive: true, query_timeout: this.readTimeoutMs });
        client.on('error', (error) => this.lost(client, error));
        client.on('end', () => this.lost(client));
        client.on('notification', (message) => {
            const notice = this.notices.get(message.channel);
            if (notice) this.emit(notice, []);
            else this.wake();
        });
        try {
            await client.connect();
            await client.query(`LISTEN ${EVENTS_CHANNEL}`);
            for (const channel of this.notices.keys()) await client.query(`LISTEN ${channel}`);
            if (this.last === undefined) {
                const { rows } = await client.query<{ seq: string | number }>('SELECT COALESCE(max(seq), 0) AS seq FROM events_all');
                this.last = Number(rows[0]?.seq ?? 0);
            }
        } catch (error) {
            await client.end().catch(() => undefined);
            this.note(error);
            this.reconnectLater();
            return;
        }
        if (this.closed) return void (await client.end().catch(() => undefined));
        this.client = client;
        this.backoff = 100;
        if (this.down) this.log.info('live feed: reconnected to PostgreSQL');
        this.down = false;
        this.wake();
    }

    /** A connection that failed or ended is dropped and a new one made; only the current one counts. */
    private lost(client: pg.Client, error?: Error): void {
        if (client !== this.client) return;
        this.client = undefined;
        client.end().catch(() => undefined);
        this.note(error ?? new Error('connection ended'));
        this.reconnectLater();
    }

    private reconnectLater(): void {
        if (this.closed || this.retry) return;
        this.retry = setTimeout(() => {
            this.retry = undefined;
            void this.connect();
        }, this.backoff);
        this.backoff = Math.min(this.backoff * 2, this.maxBackoffMs);
    }

    /** Reads now, or once more after the read in progress (notifications come in bursts). */
    private wake(): void {
        if (this.reading) return void (this.again = true);
        this.reading = true;
        void this.read().finally(() => {
            this.reading = false;
            if (this.again) (this.again = false), this.wake();
        });
    }

    private async read(): Promise<void> {
        const client = this.client;
        if (!client || this.last === undefined) return;
        try {
            for (;;) {
                const after: number = this.last;
                // Bounded on both sides: on a young table without statistics the planner costs a one-sided
                // range as a third of the table and scanned all of it once per commit; a closed range
                // reads the primary key (EXPLAIN-checked). 2^40 positions is far past any batch.
                // Prepared once per connection: planning over the view cost ten times the read (pool.ts).
                const { rows } = await client.query<FeedRow>({ ...READ, values: [after, BATCH] });
                if (rows.length === 0 || client !== this.client) return;
                this.last = Number(rows[rows.length - 1]!.seq);
                if (this.committed.size > 0) this.emit(this.committed, rows.map((row) => row.id));
                const foreign = rows.filter((row) => row.origin !== this.instanceId).map((row) => row.id);
                if (foreign.length > 0 && this.listeners.size > 0) this.emit(this.listeners, foreign);
                this.release();
                if (rows.length < BATCH) return;
            }
        } catch (error) {
            if (isConnectionError(error)) this.lost(client, error as Error);
            else this.log.warn('live feed: reading new events failed', { error: error instanceof Error ? error.message : String(error) });
        }
    }

    /** Resolves the caughtUp() calls the feed has now passed. */
    private release(): void {
        if (this.waiters.length === 0) return;
        const last = this.last ?? 0;
        const due = this.waiters.filter((w) => w.seq <= last);
        this.waiters = this.waiters.filter((w) => w.seq > last);
        for (const w of due) w.done();
    }

    private emit(listeners: Set<Listener>, ids: string[]): void {
        for (const listener of listeners) {
            try {
                listener(ids);
            } catch (error) {
                this.log.warn('live feed: a listener failed', { error: error instanceof Error ? error.message : String(error) });
            }
        }
    }

    /** Logs the first failure of an outage, not every retry. */
    private note(error: unknown): void {
        if (this.down || this.closed) return;
        this.down = true;
        this.log.warn('live feed: lost PostgreSQL; reconnecting', { error: error instanceof Error ? error.message : String(error) });
    }
}
