/** Advisory lock keys (one database, shared by every instance). */
export const LOCKS = {
    /** Held for the whole start migration, so instances starting together migrate one at a time. */
    migrate: 0x7768_6401,
    /** Taken by every transaction that assigns event positions: position order = commit order. */
    events: 0x7768_6402,
    /** Taken by the inbox mover (one at a time over all instances) and by deletions (inbox.ts). */
    inbox: 0x7768_6403,
} as const;

/** The channel a commit notifies so that other instances read the new events. */
export const EVENTS_CHANNEL = 'whd_events';

/** The channel a webhook's creation, change or deletion notifies (its id as the payload). */
export const WEBHOOKS_CHANNEL = 'whd_webhooks';

/** Replays kept per event: the latest ones (the same number as the SQLite backend keeps). */
export const REPLAY_HISTORY = 50;
