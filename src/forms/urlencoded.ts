import { createHash, type Hash } from 'node:crypto';
import { emptyForm, MAX_FIELD_BYTES, MAX_PARTS, Problems, type ContentHook, type FormOutcome, type FormReader, type ValueRange } from './types.js';
import { PercentDecoder } from './percent.js';

// application/x-www-form-urlencoded, read pair by pair as it streams: each pair is decoded by the
// platform's URLSearchParams (so a body reads as URLSearchParams reads it, except that a leading `?`
// is a character of the first name, as the form parser of the URL standard has it). A pair whose
// bytes pass 1 MB is described as a file: its value, decoded as it streams, is measured, not kept.

/** A value over 1 MB: measured as it streams past. */
interface Big {
    name: string;
    decoder: PercentDecoder;
    hash: Hash;
    size: number;
}

/** An urlencoded reader; `hook` gets the decoded bytes of each value described as a file. */
export class UrlencodedReader implements FormReader {
    private readonly form = emptyForm();
    private readonly ranges: ValueRange[] = [];
    private readonly problems = new Problems();
    /** The current pair: its bytes (while under 1 MB), their count, and where its `=` is (-1: not yet). */
    private pieces: Buffer[] = [];
    private bytes = 0;
    private eq = -1;
    private big: Big | 'skip' | undefined;
    /** Body offset of the next byte, and of the current pair's first. */
    private offset = 0;
    private pairStart = 0;
    private pairs = 0;

    constructor(private readonly hook?: ContentHook) {}

    push(chunk: Buffer): void {
        let from = 0;
        for (let amp = chunk.indexOf(38, from); amp >= 0; amp = chunk.indexOf(38, from)) {
            this.take(chunk.subarray(from, amp));
            this.endPair();
            this.offset++;
            from = amp + 1;
        }
        if (from < chunk.length) this.take(from === 0 ? chunk : chunk.subarray(from));
    }

    finish(): FormOutcome {
        this.endPair();
        if (this.pairs > MAX_PARTS) this.problems.add(`more than ${MAX_PARTS} fields: the first ${MAX_PARTS} are described`);
        const error = this.problems.text();
        return error === undefined ? { form: this.form, ranges: this.ranges } : { form: this.form, error, ranges: this.ranges };
    }

    private take(bytes: Buffer): void {
        if (bytes.length === 0) return;
        if (this.eq < 0) {
            const eq = bytes.indexOf(61);
            if (eq >= 0) this.eq = this.offset + eq;
        }
        this.bytes += bytes.length;
        if (this.big === undefined) {
            this.pieces.push(bytes);
            if (this.bytes > MAX_FIELD_BYTES && this.pairs < MAX_PARTS) this.startBig();
        } else if (this.big !== 'skip') this.measure(bytes);
        this.offset += bytes.length;
    }

    /** The pair passed 1 MB: from here its value is measured as it streams, no longer held. */
    private startBig(): void {
        const raw = Buffer.concat(this.pieces);
        this.pieces = [];
        if (this.eq < 0) {
            this.problems.add(`field ${this.pairs}: a name over 1 MB, not described`);
            this.big = 'skip';
            return;
        }
        const nameBytes = this.eq - this.pairStart;
        const [name] = decodePair(raw.subarray(0, nameBytes).toString('utf8'));
        this.big = { name, decoder: new PercentDecoder(), hash: createHash('sha256'), size: 0 };
        this.measure(raw.subarray(nameBytes + 1));
    }

    private measure(value: Buffer): void {
        const big = this.big as Big;
        this.emit(big, big.decoder.decode(value), this.pairs);
    }

    private emit(big: Big, decoded: Buffer, index: number): void {
        if (decoded.length === 0) return;
        big.size += decoded.length;
        big.hash.update(decoded);
        this.hook?.(index, decoded);
    }

    private endPair(): void {
        const { big } = this;
        const empty = this.bytes === 0;
        const index = this.pairs;
        const end = this.offset;
        const start = this.eq < 0 ? end : this.eq + 1;
        if (!empty) this.pairs++;
        if (!empty && index < MAX_PARTS && big !== 'skip') {
            if (big) {
                this.emit(big, big.decoder.end(), index);
                this.form.files.push({ index, field: big.name, filename: null, contentType: 'text/plain', size: big.size, sha256: big.hash.digest('hex') });
                this.ranges.push({ index, name: big.name, file: true, start, end });
            } else {
                const [name, value] = decodePair(Buffer.concat(this.pieces).toString('utf8'));
                (this.form.fields[name] ??= []).push(value);
                this.ranges.push({ index, name, file: false, start, end });
            }
        }
        this.pieces = [];
        this.bytes = 0;
        this.eq = -1;
        this.big = undefined;
        // The next pair starts after the `&` that ended this one.
        this.pairStart = end + 1;
    }
}

/**
 * One `name=value` pair (no `&` in it) as URLSearchParams decodes it. URLSearchParams drops a leading
 * `?` of its input, which is a query string's; a pair is never given one to drop.
 */
function decodePair(pair: string): [string, string] {
    for (const entry of new URLSearchParams(`&${pair}`)) return entry;
    return [pair, ''];
}
