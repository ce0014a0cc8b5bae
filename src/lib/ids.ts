import { customAlphabet } from 'nanoid';

/** Generates identifiers; injected so tests can predict them. */
export interface IdGenerator {
    /** A new webhook id: `wh_` + 21 url-safe characters. */
    webhookId(): string;
    /** A new log entry id: 21 url-safe characters, increasing with time. */
    logId(): string;
    /** A new request id: 21 url-safe characters, increasing with time. */
    requestId(): string;
}

// The URL-safe characters in ASCII order, so that ids compare like the times they start with.
const SORTED = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';
const random13 = customAlphabet(SORTED, 13);
const alnum21 = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 21);

/**
 * 8 characters of milliseconds since the epoch, then 13 random ones (78 bits). Ids made later
 * sort later, so each insert lands at the right edge of the id indexes instead of a random page:
 * a commit writes a few index pages rather than one per event.
 */
export function sortableId(now: number): string {
    let prefix = '';
    let t = Math.floor(now);
    for (let i = 0; i < 8; i++) {
        prefix = SORTED[t % 64]! + prefix;
        t = Math.floor(t / 64);
    }
    return prefix + random13();
}

/** Random webhook ids, time-ordered log and request ids. */
export const randomIds: IdGenerator = {
    webhookId: () => `wh_${alnum21()}`,
    logId: () => sortableId(Date.now()),
    requestId: () => sortableId(Date.now()),
};

/** A new bulk replay job id: `rj_` + 21 alphanumeric characters. */
export const replayJobId = (): string => `rj_${alnum21()}`;
