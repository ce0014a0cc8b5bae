// Shared with the dashboard (web/), so it must not use Node's types.

/** One replay of an event that reached delivery, as GET /logs/:logId lists it under `replays`. */
export interface ReplayRecord {
    /** When the replay finished, ISO 8601. */
    at: string;
    targetUrl: string;
    /** The target's status; null when no attempt got an answer. */
    targetResponseCode: number | null;
    attempts: number;
    /** Why no answer came (timeout, network error); null when one did. */
    error: string | null;
    resigned: boolean;
}
