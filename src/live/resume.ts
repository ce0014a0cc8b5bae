import type { ServerResponse } from 'node:http';
import type { LiveFeed } from '../storage/roles.js';
import type { LogEntry } from '../storage/types.js';
import { LIVE_BODY_LIMIT, rawBodyOfEntry, truncateBody } from './entry.js';

/** Entries read from storage at a time: with bodies over 64 KB never loaded, a page holds at most ~1 MB of bodies. */
const PAGE = 16;
/**
 * The ids last sent that are kept, to drop their live frames (see SentIds): far more than can
 * commit between the resume's last reads and its switch to live frames.
 */
const RECENT_IDS = 10_000;

/** The comment a resume sends when it cannot deliver everything that was missed. */
export const RESUME_INCOMPLETE = ': resume incomplete, page /logs\n\n';

/** The entry with `rawBody` (see rawBodyOfEvent), when there is one. */
export const withRawBody = (entry: LogEntry, rawBody: string | undefined): LogEntry => (rawBody === undefined ? entry : { ...entry, rawBody });

/** The `id:`/`data:` frame of one event. */
export const frameOf = (id: string, data: unknown): string => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** What a resume needs from the hub. */
export interface ResumeOptions {
    feed: Pick<LiveFeed, 'entriesAfter'>;
    baseUrl: string;
    /** The most missed events sent (DECISIONS: 1,000; a client may ask for more, `resumeLimit`). */
    limit: number;
    /**
     * Whether the client's filters accept an entry (a filtered stream); absent: every entry. Its
     * entries that do not match are read, not sent, and do not count against `limit`.
     */
    accepts?: (entry: LogEntry) => Promise<boolean>;
    /** The most entries a filtered resume reads without sending before it gives up (`: resume incomplete`). */
    maxSkipped: number;
    /** Whether frames carry `rawBody` (`?rawBodies=true`). */
    rawBodies?: boolean;
    /** Unread bytes the resume leaves in the socket before it waits for the reader. */
    slackBytes: number;
    /**
     * Resolves once the hub has published every event committed so far (a shared database's feed
     * may lag): the frames it holds after that all come after this client's Last-Event-ID.
     */
    settle(): Promise<void>;
    /**
     * Caught up: from now on the hub keeps this client's live frames instead of skipping them, so an
     * event that commits while the last read is in flight reaches the client one way or the other.
     */
    hold(): void;
    /** Ends the resume. `sent` holds the ids last sent from storage: their live frames must not repeat. */
    goLive(sent: SentIds): void;
}

/**
 * The ids a resume sent, the latest RECENT_IDS of them: only those can come back as live frames (the
 * hub holds a client's live frames only from its resume's last reads on), and a resume of millions
 * of events must not keep millions of ids.
 */
export class SentIds {
    private current = new Set<string>();
    private previous = new Set<string>();

    /** Whether `id` was sent recently. */
    has(id: string): boolean {
        return this.current.has(id) || this.previous.has(id);
    }

    add(id: string): void {
        if (this.current.size >= RECENT_IDS / 2) {
            this.previous = this.current;
            this.current = new Set();
        }
        this.current.add(id);
    }
}

/**
 * Sends what a reconnecting client missed after `lastEventId`, page by page from storage, at the
 * pace the client reads: after a page it waits for the socket to drain whenever more than
 * `slackBytes` are unread, so memory holds one page per client whatever the gap. Frames carry
 * bodies up to 64 KB and a reference beyond (never a full body). Events committed while it runs are
 * read from storage too, so it switches to live frames only once it has caught up: in order, with
 * nothing lost and nothing sent twice. Reads are asynchronous (a shared database): once a page
 * comes back short, the hub holds the client's live frames and one more page is read, so an event
 * committed during the previous read is in that page or among the held frames (the hub drops the
 * held ones storage sent). Before it holds, the hub publishes what its feed has not yet (`settle`), so
 * a lagging feed never sends a held frame from before the Last-Event-ID.
 */
export async function resume(res: ServerResponse, lastEventId: string, o: ResumeOptions): Promise<void> {
    const sent = new SentIds();
    let count = 0;
    let skipped = 0;
    let after = lastEventId;
    let holding = false;
    const incomplete = (text: string): void => {
        if (res.destroyed || res.writableEnded) return;
        res.write(text + RESUME_INCOMPLETE);
        o.goLive(sent);
    };
    for (;;) {
        if (res.destroyed || res.writableEnded) return;
        // One more than the limit allows, to learn whether anything lies past it (a filtered
        // resume cannot know how many of a page it will send: it reads whole pages).
        const want = o.accepts ? PAGE : Math.min(PAGE, o.limit - count + 1);
        const page = await o.feed.entriesAfter(after, want, LIVE_BODY_LIMIT);
        if (res.destroyed || res.writableEnded) return;
        if (page === undefined) {
            // The id is unknown (or was deleted mid-resume): say so and go live.
            return incomplete('');
        }
        let text = '';
        for (const entry of page) {
            after = entry.id;
            if (o.accepts && !(await o.accepts(entry))) {
                // Reading on for matches must end somewhere: past that, /logs pages the rest.
                if (++skipped >= o.maxSkipped) return incomplete(text);
                continue;
            }
            if (count === o.limit) return incomplete(text);
            text += frameOf(entry.id, o.rawBodies ? withRawBody(truncateBody(entry, o.baseUrl), rawBodyOfEntry(entry)) : truncateBody(entry, o.baseUrl));
            sent.add(entry.id);
            count++;
        }
        if (res.destroyed || res.writableEnded) return;
        if (text) res.write(text);
        if (page.length < want && res.writableLength <= o.slackBytes) {
            if (holding) return o.goLive(sent);
            await o.settle();
            if (res.destroyed || res.writableEnded) return;
            holding = true;
            o.hold();
            continue;
        }
        await (res.writableLength > o.slackBytes ? drained(res) : new Promise((r) => setImmediate(r)));
    }
}

/** Resolves once the client has read everything buffered, or has gone. */
function drained(res: ServerResponse): Promise<void> {
    if (res.destroyed || res.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
        const done = (): void => {
            res.off('drain', done).off('close', done);
            resolve();
        };
        res.on('drain', done).on('close', done);
    });
}
