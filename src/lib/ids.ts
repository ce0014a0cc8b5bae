import { customAlphabet, nanoid } from 'nanoid';

/** Generates identifiers; injected so tests can predict them. */
export interface IdGenerator {
    /** A new webhook id: `wh_` + 21 url-safe characters. */
    webhookId(): string;
    /** A new log entry id. */
    logId(): string;
    /** A new request id. */
    requestId(): string;
}

const alnum = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 21);

/** Random ids from nanoid. */
export const randomIds: IdGenerator = {
    webhookId: () => `wh_${alnum()}`,
    logId: () => nanoid(),
    requestId: () => nanoid(),
};
