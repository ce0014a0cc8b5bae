import { createHash, type Hash } from 'node:crypto';
import { createRequire } from 'node:module';
import type busboy from 'busboy';
import type { Form } from '../api/capture.js';
import { DelimiterSearch } from './delimiter.js';
import type { ParsedType } from './kind.js';
import { emptyForm, MAX_FIELD_BYTES, MAX_PARTS, Problems, type ContentHook, type FormOutcome, type FormReader, type ValueRange } from './types.js';

// multipart/form-data, read by busboy, which decides what each part is (its headers, name, filename,
// media type, a field's decoded value). busboy shows neither where a part's bytes are nor a field's
// bytes past its size limit, so a scan for the same delimiter measures each part beside it: where its
// bytes are (redaction rewrites them in place, the files route serves them), how many, their SHA-256.
// busboy is fed the body as the scan reads it, so whatever it reports during one write concerns the
// part the scan is in; it is fed all of it but the content of its files, which it would only pass on
// (its search over them was most of the cost of reading an upload).

/** busboy's limit on one part's header block; a longer one is a bad header to it as well. */
const MAX_HEADER_BYTES = 16 * 1024;
const END_OF_HEADER = [13, 10, 13, 10];
const END_OF_HEADER_BYTES = Buffer.from(END_OF_HEADER);
const CRLF = Buffer.from('\r\n');

/**
 * busboy's multipart parser (lib/types/multipart.js), which busboy() picks for multipart/form-data
 * after parsing the Content-Type; made directly with the Content-Type kind.ts already parsed, as
 * busboy() makes it, so that it is not parsed twice per request.
 */
const Multipart = createRequire(import.meta.url)('busboy/lib/types/multipart.js') as new (config: {
    conType: ParsedType;
    limits: busboy.Limits;
    defParamCharset: string;
    preservePath: boolean;
}) => busboy.Busboy;

/** What busboy reported about one part. */
interface Seen {
    kind: 'file' | 'field' | 'error';
    name: string;
    filename?: string | undefined;
    type?: string;
    value?: string;
    truncated?: boolean;
}

/**
 * What the scan measured of one part's content. Only files need a SHA-256 (and fields over 1 MB,
 * which are described as files), and which a part is only busboy says, once it has read the part's
 * header: until then its bytes are held (views of chunks already received, no copy), then hashed
 * or let go. A field is held while it streams, so at most 1 MB of it.
 */
interface Measured {
    start: number;
    size: number;
    ended: boolean;
    held?: Buffer[];
    hash?: Hash;
    sha256?: string;
}

type Phase = 'preamble' | 'after-delimiter' | 'header' | 'content' | 'skip' | 'done';

/** A multipart/form-data reader for `boundary`; `hook` gets every part's content bytes as they pass. */
export class MultipartReader implements FormReader {
    private readonly parser: busboy.Busboy;
    private readonly search: DelimiterSearch;
    private readonly seen = new Map<number, Seen>();
    private readonly measured = new Map<number, Measured>();
    /** Parts whose bytes are held until it is known whether they need hashing. */
    private readonly unsettled = new Set<number>();
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
    private failed = false;
    private more = false;
    private readonly delimiter: Buffer;

    /** `contentType` is the request's as busboy parses it, `boundary` the one it reads in it (kind.ts). */
    constructor(contentType: ParsedType, boundary: string, private readonly hook?: ContentHook) {
        this.parser = new Multipart({
            conType: contentType,
            preservePath: false,
            // Filenames sent as raw UTF-8 (as browsers send them) read as UTF-8.
            defParamCharset: 'utf8',
            // One byte over 1 MB marks a field as over it (busboy then reports it truncated). A file's bytes
            // are measured by the scan (and not fed to busboy): should any reach it, it passes none on.
            limits: { fieldSize: MAX_FIELD_BYTES + 1, parts: MAX_PARTS, fileSize: 0 },
        });
        const at = (): number => this.fed - 1;
        this.parser.on('file', (name, stream, info) => {
            // Only its end is waited for; a body cut short ends it with an error that says nothing new.
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
        this.delimiter = Buffer.from(`\r\n--${boundary}`);
        this.search = new DelimiterSearch(this.delimiter, (bytes) => this.onBytes(bytes), () => this.onDelimiter());
        // busboy starts with a CRLF of its own, so that a body starting with the delimiter line matches.
        this.search.push(CRLF);
    }

    push(chunk: Buffer): void {
        if (this.failed || chunk.length === 0) return;
        this.guarded(() => this.search.push(chunk));
        this.settle();
    }

    finish(): FormOutcome {
        if (!this.failed) this.guarded(() => this.search.flush());
        this.endPart();
        this.parser.destroy();
        this.settle();
        if (this.delimiters === 0) this.problems.add('no part: the body holds no delimiter line of the boundary in its Content-Type');
        else if (this.phase !== 'done') this.problems.add('truncated: the body ends before the closing delimiter');
        if (this.more) this.problems.add(`more than ${MAX_PARTS} parts: the first ${MAX_PARTS} are described`);
        const { form, ranges } = this.describe();
        const error = this.problems.text();
        return error === undefined ? { form, ranges } : { form, error, ranges };
    }

    /** Runs the scan (and busboy); busboy throws nothing it does not also report, but should it, the form is described as far as it was read. */
    private guarded(read: () => void): void {
        try {
            read();
        } catch (error) {
            this.failed = true;
            this.problems.add(`the form could not be read past byte ${this.offset}: ${(error as Error).message}`);
        }
    }

    /** Hands busboy the next bytes of the body. */
    private feed(bytes: Buffer): void {
        if (bytes.length > 0) this.parser.write(bytes);
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

    private onDelimiter(): void {
        if (this.phase === 'done') return;
        this.endPart();
        // busboy reports the end of the part before during this write: it still counts as that part's.
        this.feed(this.offset < 0 ? this.delimiter.subarray(-this.offset) : this.delimiter);
        this.fed++;
        this.offset += this.delimiter.length;
        this.delimiters++;
        this.phase = 'after-delimiter';
        this.afterDelimiter = [];
    }

    private endPart(): void {
        if (this.phase !== 'content') return;
        const part = this.measured.get(this.delimiters - 1);
        if (part) {
            part.ended = true;
            if (part.hash) part.sha256 = part.hash.digest('hex');
        }
        this.phase = 'skip';
    }

    /** Once busboy has read what the scan has: the held bytes of a file (or a field past 1 MB) are hashed, a field's let go. */
    private settle(): void {
        for (const index of this.unsettled) {
            const part = this.measured.get(index)!;
            if (this.seen.get(index)?.kind === 'file' || part.size > MAX_FIELD_BYTES) {
                const hash = createHash('sha256');
                for (const bytes of part.held!) hash.update(bytes);
                part.hash = hash;
                if (part.ended) part.sha256 = hash.digest('hex');
            } else if (!part.ended) continue;
            delete part.held;
            this.unsettled.delete(index);
        }
    }

    /**
     * Reads the bytes between delimiters and feeds busboy the same bytes, but the content of a file
     * (busboy has read its header by then) and what follows the closing delimiter. The leading CRLF
     * of the search is not the body's: busboy has its own.
     */
    private onBytes(bytes: Buffer): void {
        let i = 0;
        let fed = this.offset < 0 ? Math.min(-this.offset, bytes.length) : 0;
        while (i < bytes.length) {
            const phase = this.phase;
            if (phase === 'content' || phase === 'done') {
                this.feed(bytes.subarray(fed, i));
                const file = phase === 'done' || this.seen.get(this.delimiters - 1)?.kind === 'file';
                fed = file ? bytes.length : i;
                i = phase === 'done' ? bytes.length : this.readContent(bytes, i);
                continue;
            }
            if (phase === 'after-delimiter') i = this.readAfterDelimiter(bytes, i);
            else if (phase === 'header') i = this.readHeader(bytes, i);
            else i = bytes.length;
        }
        if (fed < bytes.length) this.feed(bytes.subarray(fed));
        this.offset += bytes.length;
    }

    /** A part's content: measured, and handed to the hook; the rest of the bytes are all content. */
    private readContent(bytes: Buffer, i: number): number {
        const rest = i === 0 ? bytes : bytes.subarray(i);
        const part = this.measured.get(this.delimiters - 1)!;
        part.size += rest.length;
        if (part.hash) part.hash.update(rest);
        else part.held!.push(rest);
        this.hook?.(this.delimiters - 1, rest);
        return bytes.length;
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
        // An end begun in the last chunk is followed byte by byte (three bytes at most); then indexOf finds the next.
        for (; this.headerMatch > 0 && i < bytes.length; i++) {
            const b = bytes[i]!;
            this.headerMatch = b === END_OF_HEADER[this.headerMatch] ? this.headerMatch + 1 : b === 13 ? 1 : 0;
            if (!this.countHeader(1)) return bytes.length;
            if (this.headerMatch === END_OF_HEADER.length) return this.startContent(i + 1);
        }
        if (i >= bytes.length) return i;
        const end = bytes.indexOf(END_OF_HEADER_BYTES, i);
        if (end >= 0) return this.countHeader(end + END_OF_HEADER.length - i) ? this.startContent(end + END_OF_HEADER.length) : bytes.length;
        if (!this.countHeader(bytes.length - i)) return bytes.length;
        // The chunk may end with the start of the empty line: the longest end of it that begins CRLF CRLF.
        for (let k = END_OF_HEADER.length - 1; k > 0; k--) {
            if (bytes.length - k >= i && END_OF_HEADER_BYTES.compare(bytes, bytes.length - k, bytes.length, 0, k) === 0) {
                this.headerMatch = k;
                break;
            }
        }
        return bytes.length;
    }

    /** Counts `n` more header bytes; false (and the part skipped, as busboy does) once past its limit. */
    private countHeader(n: number): boolean {
        this.headerBytes += n;
        if (this.headerBytes <= MAX_HEADER_BYTES + END_OF_HEADER.length) return true;
        this.phase = 'skip';
        return false;
    }

    /** The part's content starts at `i` of the bytes being read. */
    private startContent(i: number): number {
        this.phase = 'content';
        this.measured.set(this.delimiters - 1, { start: this.offset + i, size: 0, ended: false, held: [] });
        this.unsettled.add(this.delimiters - 1);
        return i;
    }
}
