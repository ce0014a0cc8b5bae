/** Bytes as a short human figure. */
export function formatSize(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`;
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A capture time as local clock time, with the date when it is not today. */
export function formatTime(iso: string, now = new Date()): string {
    const d = new Date(iso);
    const time = d.toLocaleTimeString(undefined, { hour12: false });
    return d.toDateString() === now.toDateString() ? time : `${d.toLocaleDateString()} ${time}`;
}

/** Time left until `iso`, e.g. "23h 59m" or "expired". */
export function timeLeft(iso: string, nowMs: number): string {
    const ms = Date.parse(iso) - nowMs;
    if (!(ms > 0)) return 'expired';
    const m = Math.floor(ms / 60_000);
    if (m < 1) return `${Math.ceil(ms / 1000)}s`;
    if (m < 60) return `${m}m`;
    return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * A stored request URL split for a list row: the webhook part (the same on every row of a webhook,
 * so shown short) and what differs, the sub-path and query string.
 */
export function pathOf(requestUrl: string): { hook: string; rest: string } {
    const m = /^\/webhook\/([^/?]*)(.*)$/.exec(requestUrl);
    if (!m) return { hook: '', rest: requestUrl || '/' };
    const id = m[1] ?? '';
    return { hook: id.length > 11 ? `${id.slice(0, 10)}…` : id, rest: m[2] || '/' };
}
