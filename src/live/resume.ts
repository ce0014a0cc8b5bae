import type { ServerResponse } from 'node:http';
import type { LiveFeed } from '../storage/roles.js';
import { LIVE_BODY_LIMIT, truncateBody } from './entry.js';

/** Entries read from storage at a time: with bodies over 64 KB never loaded, a page holds at most ~1 MB of bodies. */
const PAGE = 16;

/** The comment a resume sends when it cannot deliver everything that was missed. */
export const RESUME_INCOMPLETE = ': resume incomplete, page /logs\n\n';

/** The `id:`/`data:` frame of one event. */
export const frameOf = (id: string, data: unknown): string => `id: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

/** What a resume needs from the hub. */
export interface ResumeOptions {
    feed: Pick<LiveFeed, 'entriesAfter'>;
    baseUrl: string;
    /** The most missed events sent (DECISIONS: 1,000). */
    limit: number;
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
    /** Ends the resume. `sent` holds the ids sent from storage: their live frames must not repeat. */
    goLive(sent: Set<string>): void;
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
    const sent = new Set<string>();
    let after = lastEventId;
    let holding = false;
    for (;;) {
        if (res.destroyed || res.writableEnded) return;
        // One more than the limit allows, to learn whether anything lies past it.
        const want = Math.min(PAGE, o.limit - sent.size + 1);
        const page = await o.feed.entriesAfter(after, want, LIVE_BODY_LIMIT);
        if (res.destroyed || res.writableEnded) return;
        if (page === undefined) {
            // The id is unknown (or was deleted mid-resume): say so and go live.
            res.write(RESUME_INCOMPLETE);
            return o.goLive(sent);
        }
        let text = '';
        for (const entry of page) {
            if (sent.size === o.limit) {
                res.write(text + RESUME_INCOMPLETE);
                return o.goLive(sent);
            }
            text += frameOf(entry.id, truncateBody(entry, o.baseUrl));
            sent.add(entry.id);
            after = entry.id;
        }
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
