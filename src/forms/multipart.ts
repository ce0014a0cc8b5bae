import { createHash, type Hash } from 'node:crypto';
import busboy from 'busboy';
import type { Form } from '../api/capture.js';
import { DelimiterSearch } from './delimiter.js';
import { emptyForm, MAX_FIELD_BYTES, MAX_PARTS, Problems, type ContentHook, type FormOutcome, type FormReader, type ValueRange } from './types.js';

// multipart/form-data, read by busboy, which decides what each part is (its headers, name, filename,
// media type, a field's decoded value). busboy shows neither where a part's bytes are nor a field's
// bytes past its size limit, so a scan for the same delimiter measures each part beside it: where its
// bytes are (redaction rewrites them in place, the files route serves them), how many, their SHA-256.
// busboy is fed the chunks cut right after each delimiter, so whatever it reports during one write
// concerns the part that write belongs to.

/** busboy's limit on one part's header block; a longer one is a bad header to it as well. */
const MAX_HEADER_BYTES = 16 * 1024;
const END_OF_HEADER = [13, 10, 13, 10];

/** What busboy reported about one part. */
interface Seen {
    kind: 'file' | 'field' | 'error';
    name: string;
    filename?: string | undefined;
    type?: string;
    value?: string;
    truncated?: boolean;
}

/** What the scan measured of one part's content. */
interface Measured {
    start: number;
    size: number;
    hash: Hash;
    sha256?: string;
}

type Phase = 'preamble' | 'after-delimiter' | 'header' | 'content' | 'skip' | 'done';

/** A multipart/form-data reader for `boundary`; `hook` gets every part's content bytes as they pass. */
export class MultipartReader implements FormReader {
    private readonly parser: busboy.Busboy;
    private readonly search: DelimiterSearch;
    private readonly seen = new Map<number, Seen>();
    private readonly measured = new Map<number, Measured>();
    private readonly problems = new Problems();
    /** Delimiters found; the part after the n-th is part n - 1. */
    private delimiters = 0;
    /** Delimiters busboy has been fed. */
    private fed = 0;
    private phase: Phase = 'preamble';
    /** Body offset of the next byte the scan reads (the search's leading CRLF is not the body's). */
    private offset = -2;
    private afterDelimiter: number[] = [];
    private headerBytes = 0;
    private headerMatch = 0;
    private cuts: number[] = [];
    private failed = false;
    private more = false;
    private readonly delimiterLength: number;

    /** `contentType` is the request's, `boundary` the one busboy reads in it (kind.ts). */
    constructor(contentType: string, boundary: string, private readonly hook?: ContentHook) {
        this.parser = busboy({
            headers: { 'content-type': contentType },
            // Filenames sent as raw UTF-8 (as browsers send them) read as UTF-8.
            defParamCharset: 'utf8',
            // One byte over 1 MB marks a field as over it (busboy then reports it truncated).
            limits: { fieldSize: MAX_FIELD_BYTES + 1, parts: MAX_PARTS },
            // Its file streams are not read for their bytes (the scan measures them); a high mark keeps
            // busboy from waiting for a reader between two writes.
            fileHwm: 2 ** 30,
        });
        const at = (): number => this.fed - 1;
        this.parser.on('file', (name, stream, info) => {
            // Read for nothing (the scan measured the bytes); a body cut short ends it with an error that says nothing new.
            stream.on('error', () => undefined).resume();
            this.seen.set(at(), { kind: 'file', name: name ?? '', filename: info.filename, type: info.mimeType });
        });
        this.parser.on('field', (name, value, info) => {
            this.seen.set(at(), { kind: 'field', name: name ?? '', value, truncated: info.valueTruncated, type: info.mimeType });
        });
        // After finish, destroy() reports the end state again: nobody listens any more.
        this.parser.on('error', () => {
            if (!this.seen.has(at()) && this.fed > 0) this.seen.set(at(), { kind: 'error', name: '' });
        });
        // The very bytes busboy searches for (its search encodes the string as UTF-8).
        const delimiter = Buffer.from(`\r\n--${boundary}`);
        this.delimiterLength = delimiter.length;
        this.search = new DelimiterSearch(delimiter, (bytes) => this.onBytes(bytes), (end) => this.onDelimiter(end));
        // busboy starts with a CRLF of its own, so that a body starting with the delimiter line matches.
        this.search.push(Buffer.from('\r\n'));
    }

    push(chunk: Buffer): void {
        if (this.failed || chunk.length === 0) return;
        try {
            this.cuts = [];
            this.search.push(chunk);
            let from = 0;
            for (const cut of this.cuts) {
                this.parser.write(chunk.subarray(from, cut));
                this.fed++;
                from = cut;
            }
            if (from < chunk.length && this.phase !== 'done') this.parser.write(chunk.subarray(from));
        } catch (error) {
            // busboy throws nothing it does not also report; should it, the form is described as far as it was read.
            this.failed = true;
            this.problems.add(`the form could not be read past byte ${this.offset}: ${(error as Error).message}`);
        }
    }

    finish(): FormOutcome {
        if (!this.failed) this.search.flush();
        this.endPart();
        this.parser.destroy();
        if (this.delimiters === 0) this.problems.add('no part: the body holds no delimiter line of the boundary in its Content-Type');
        else if (this.phase !== 'done') this.problems.add('truncated: the body ends before the closing delimiter');
        if (this.more) this.problems.add(`more than ${MAX_PARTS} parts: the first ${MAX_PARTS} are described`);
        const { form, ranges } = this.describe();
        const error = this.problems.text();
        return error === undefined ? { form, ranges } : { form, error, ranges };
    }

    private describe(): { form: Form; ranges: ValueRange[] } {
        const form = emptyForm();
        const ranges: ValueRange[] = [];
        const parts = Math.min(this.delimiters, MAX_PARTS);
        for (let index = 0; index < parts; index++) {
            const seen = this.seen.get(index);
            const measured = this.measured.get(index);
            if (seen?.kind === 'error') this.problems.add(`part ${index}: bad part header`);
            if (!seen || seen.kind === 'error' || !measured) continue;
            const end = measured.start + measured.size;
            const file = seen.kind === 'file' || seen.truncated === true;
            ranges.push({ index, name: seen.name, file, start: measured.start, end });
            if (!file) {
                (form.fields[seen.name] ??= []).push(seen.value ?? '');
                continue;
            }
            form.files.push({ index, field: seen.name, filename: seen.filename ?? null, contentType: seen.type ?? 'application/octet-stream', size: measured.size, sha256: measured.sha256 ?? '' });
        }
        // Parts busboy skipped without a word: no Content-Disposition: form-data. (A field cut off by
        // the end of a truncated body is not reported by busboy either; "truncated" says why.)
        const last = this.phase === 'done' ? parts : this.delimiters - 1;
        for (let index = 0; index < parts; index++) {
            if (index !== last && !this.seen.has(index) && this.measured.has(index)) this.problems.add(`part ${index}: not a form-data part (no Content-Disposition: form-data), not described`);
        }
        return { form, ranges };
    }

    private onDelimiter(end: number): void {
        if (this.phase === 'done') return;
        this.endPart();
        this.offset += this.delimiterLength;
        this.delimiters++;
        this.cuts.push(end);
        this.phase = 'after-delimiter';
        this.afterDelimiter = [];
    }

    private endPart(): void {
        if (this.phase !== 'content') return;
        const part = this.measured.get(this.delimiters - 1);
        if (part) part.sha256 = part.hash.digest('hex');
        this.phase = 'skip';
    }

    private onBytes(bytes: Buffer): void {
        let i = 0;
        while (i < bytes.length) {
            switch (this.phase) {
                case 'after-delimiter':
                    i = this.readAfterDelimiter(bytes, i);
                    break;
                case 'header':
                    i = this.readHeader(bytes, i);
                    break;
                case 'content': {
                    const rest = i === 0 ? bytes : bytes.subarray(i);
                    const part = this.measured.get(this.delimiters - 1)!;
                    part.size += rest.length;
                    part.hash.update(rest);
                    this.hook?.(this.delimiters - 1, rest);
                    i = bytes.length;
                    break;
                }
                default:
                    i = bytes.length;
            }
        }
        this.offset += bytes.length;
    }

    /** `--` ends the body; CRLF starts a part's header; anything else makes busboy skip to the next delimiter. */
    private readAfterDelimiter(bytes: Buffer, i: number): number {
        this.afterDelimiter.push(bytes[i]!);
        const [first, second] = this.afterDelimiter;
        if (second === undefined) {
            if (first !== 45 && first !== 13) this.phase = 'skip';
            return i + 1;
        }
        if (first === 45) this.phase = second === 45 ? 'done' : 'skip';
        else if (second !== 10) this.phase = 'skip';
        else if (this.delimiters > MAX_PARTS) {
            this.more = true;
            this.phase = 'skip';
        } else {
            this.phase = 'header';
            this.headerBytes = 0;
            this.headerMatch = 0;
        }
        return i + 1;
    }

    /** The header block ends at its first empty line (busboy refuses a bare CR in it, so that is where it ends too). */
    private readHeader(bytes: Buffer, i: number): number {
        for (; i < bytes.length; i++) {
            const b = bytes[i]!;
            this.headerMatch = b === END_OF_HEADER[this.headerMatch] ? this.headerMatch + 1 : b === 13 ? 1 : 0;
            if (++this.headerBytes > MAX_HEADER_BYTES + END_OF_HEADER.length) {
                this.phase = 'skip';
                return bytes.length;
            }
            if (this.headerMatch === END_OF_HEADER.length) {
                this.phase = 'content';
                this.measured.set(this.delimiters - 1, { start: this.offset + i + 1, size: 0, hash: createHash('sha256') });
                return i + 1;
            }
        }
        return i;
    }
}
