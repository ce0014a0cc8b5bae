import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';

// A small Server-Sent Events reader. The `eventsource` package was the first choice, but it cannot
// do two things `listen` needs: it hands every event over as it arrives (no way to stop reading while
// the local server is down, so a long backlog would pile up in memory instead of waiting in the
// socket), and it drops comment lines, where the service says `: resume incomplete`.

/** One message of the stream: an event (`id:`/`data:`) or a comment line. */
export type SseMessage = { kind: 'event'; id: string | undefined; data: string } | { kind: 'comment'; text: string };

/** Splits stream text into messages (text/event-stream: lines end in LF, CRLF or CR; a blank line ends an event). */
export class SseParser {
    private rest = '';
    private data: string[] = [];
    private id: string | undefined;
    private hasId = false;
    private lastWasCr = false;

    /** The messages `text` completes, in order. */
    push(text: string): SseMessage[] {
        const out: SseMessage[] = [];
        let buffer = this.rest + text;
        // A CR at the end of the previous chunk already ended its line: an LF right after it is its pair.
        if (this.lastWasCr && buffer.startsWith('\n')) buffer = buffer.slice(1);
        let start = 0;
        for (let i = 0; i < buffer.length; i++) {
            const c = buffer.charCodeAt(i);
            if (c !== 10 && c !== 13) continue;
            this.line(buffer.slice(start, i), out);
            if (c === 13 && buffer.charCodeAt(i + 1) === 10) i++;
            start = i + 1;
        }
        this.lastWasCr = buffer.endsWith('\r');
        this.rest = buffer.slice(start);
        return out;
    }

    private line(line: string, out: SseMessage[]): void {
        if (line === '') {
            if (this.data.length > 0) out.push({ kind: 'event', id: this.hasId ? this.id : undefined, data: this.data.join('\n') });
            this.data = [];
            this.hasId = false;
            return;
        }
        if (line.startsWith(':')) {
            out.push({ kind: 'comment', text: line.slice(1).trim() });
            return;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') this.data.push(value);
        else if (field === 'id' && !value.includes('\0')) {
            this.id = value;
            this.hasId = true;
        }
        // `event:` and `retry:` are not used by the service; reconnection timing is the command's own.
    }
}

/**
 * The messages of an open stream, read only as fast as they are taken: while the caller works on
 * one, nothing more is read, and the service's resume waits for the socket to drain. A stream that
 * sends nothing (not even its 30 s heartbeat) for `idleMs` while being read is destroyed, so a dead
 * connection is noticed and reopened.
 */
export async function* sseMessages(res: IncomingMessage, idleMs: number): AsyncGenerator<SseMessage> {
    const decoder = new StringDecoder('utf8');
    const parser = new SseParser();
    const chunks = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    try {
        for (;;) {
            const timer = setTimeout(() => res.destroy(new Error(`the stream sent nothing for ${Math.round(idleMs / 1000)} s`)), idleMs);
            let next: IteratorResult<Buffer>;
            try {
                next = await chunks.next();
            } finally {
                clearTimeout(timer);
            }
            if (next.done) return;
            yield* parser.push(decoder.write(next.value));
        }
    } finally {
        res.destroy();
    }
}
