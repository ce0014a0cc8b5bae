/**
 * Finds a delimiter in a stream of chunks, as busboy's own search (streamsearch) does: leftmost
 * matches that do not overlap, one that spans two chunks included. `onData` gets the bytes between
 * matches in order (views of the chunks, or of a small copy where a match may span two), `onMatch`
 * each match with where it ends in the chunk being pushed.
 */
export class DelimiterSearch {
    /** The end of the last chunk when it may be the start of the delimiter. */
    private tail: Buffer | undefined;

    constructor(
        private readonly needle: Buffer,
        private readonly onData: (bytes: Buffer) => void,
        private readonly onMatch: (endInChunk: number) => void,
    ) {}

    /** Searches the next chunk. */
    push(chunk: Buffer): void {
        const tail = this.tail;
        this.tail = undefined;
        if (!tail) return this.scan(chunk, 0, 0);
        const n = this.needle.length;
        // A chunk shorter than the delimiter (rare): the copy is small.
        if (chunk.length < n) return this.scan(Buffer.concat([tail, chunk]), tail.length, 0);
        // Whether a delimiter starts in the held bytes is decided on a copy of them and the chunk's first
        // bytes only, never of the whole chunk (a body's first chunk always comes after a held CRLF).
        const at = Buffer.concat([tail, chunk.subarray(0, n - 1)]).indexOf(this.needle);
        if (at < 0) {
            this.onData(tail);
            return this.scan(chunk, 0, 0);
        }
        if (at > 0) this.onData(tail.subarray(0, at));
        const end = at + n - tail.length;
        this.onMatch(end);
        this.scan(chunk, 0, end);
    }

    /** Finds the delimiters in `bytes` from `from`; its first `held` bytes are those of an earlier chunk. */
    private scan(bytes: Buffer, held: number, from: number): void {
        const n = this.needle.length;
        for (let at = bytes.indexOf(this.needle, from); at >= 0; at = bytes.indexOf(this.needle, from)) {
            if (at > from) this.onData(bytes.subarray(from, at));
            from = at + n;
            this.onMatch(from - held);
        }
        const keep = this.startAtEnd(bytes, from);
        if (bytes.length - keep > from) this.onData(bytes.subarray(from, bytes.length - keep));
        if (keep > 0) this.tail = Buffer.from(bytes.subarray(bytes.length - keep));
    }

    /** The end of the stream: bytes held as a possible start of the delimiter are data after all. */
    flush(): void {
        if (this.tail) this.onData(this.tail);
        this.tail = undefined;
    }

    /** The length of the longest end of `bytes` (after `from`) that starts the delimiter; 0 for none. */
    private startAtEnd(bytes: Buffer, from: number): number {
        const first = this.needle[0]!;
        for (let at = bytes.indexOf(first, Math.max(from, bytes.length - this.needle.length + 1)); at >= 0; at = bytes.indexOf(first, at + 1)) {
            if (this.needle.compare(bytes, at, bytes.length, 0, bytes.length - at) === 0) return bytes.length - at;
        }
        return 0;
    }
}
