import { authHeaders } from './api.js';
import type { LogEntry } from './types.js';

/** Where the live connection stands, for the status badge. */
export type StreamState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'retrying'; reason: string; inMs: number };

/** What the stream reports to the page. */
export interface StreamHandlers {
    onEvent(entry: LogEntry): void;
    onState(state: StreamState): void;
    /** The server could not replay everything missed: the page should reload its list from /logs. */
    onGap(): void;
}

// A heartbeat comes every 30 s; silence for longer than this means the connection died quietly.
const STALE_MS = 75_000;
const MAX_BACKOFF_MS = 15_000;

/**
 * Follows GET /log-stream. It reads the SSE frames over fetch rather than EventSource so that the key
 * travels as a header and every reconnect, after any kind of drop (network, 503, restart), sends
 * `Last-Event-ID` and gets the missed events first. Returns a function that closes it for good.
 */
export function openStream(handlers: StreamHandlers): () => void {
    let lastId = '';
    let closed = false;
    let failures = 0;
    let controller = new AbortController();

    const connect = async (): Promise<string> => {
        controller = new AbortController();
        handlers.onState({ kind: 'connecting' });
        const headers: Record<string, string> = { ...authHeaders(), Accept: 'text/event-stream' };
        if (lastId) headers['Last-Event-ID'] = lastId;
        const res = await fetch('/log-stream', { headers, signal: controller.signal, cache: 'no-store' });
        if (!res.ok || !res.body) return `${res.status} ${res.statusText}`;
        failures = 0;
        handlers.onState({ kind: 'live' });
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let watchdog = setTimeout(() => controller.abort(), STALE_MS);
        let buffer = '';
        let data: string[] = [];
        let id: string | undefined;
        try {
            for (;;) {
                const { value, done } = await reader.read();
                if (done) return 'the server closed the stream';
                clearTimeout(watchdog);
                watchdog = setTimeout(() => controller.abort(), STALE_MS);
                buffer += value;
                let nl: number;
                while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
                    const line = buffer.slice(0, nl);
                    buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
                    if (line === '') {
                        if (data.length) dispatch(data.join('\n'), id);
                        data = [];
                        id = undefined;
                    } else if (line.startsWith(':')) {
                        if (line.includes('resume incomplete')) handlers.onGap();
                    } else {
                        const colon = line.indexOf(':');
                        const field = colon === -1 ? line : line.slice(0, colon);
                        const val = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
                        if (field === 'data') data.push(val);
                        else if (field === 'id') id = val;
                    }
                }
            }
        } finally {
            clearTimeout(watchdog);
        }
    };

    const dispatch = (text: string, id: string | undefined): void => {
        try {
            const entry = JSON.parse(text) as LogEntry;
            lastId = id ?? entry.id ?? lastId;
            handlers.onEvent(entry);
        } catch {
            // a frame that is not JSON is not an event
        }
    };

    void (async () => {
        while (!closed) {
            let reason: string;
            try {
                reason = await connect();
            } catch (error) {
                reason = error instanceof Error ? error.message : String(error);
            }
            if (closed) return;
            failures++;
            const inMs = Math.min(MAX_BACKOFF_MS, failures === 1 ? 250 : 1000 * 2 ** (failures - 2));
            handlers.onState({ kind: 'retrying', reason, inMs });
            await new Promise((r) => setTimeout(r, inMs));
        }
    })();

    return () => {
        closed = true;
        controller.abort();
    };
}
