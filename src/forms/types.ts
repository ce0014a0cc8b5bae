import type { Form } from '../api/capture.js';

// What reading a form body yields (multipart.ts, urlencoded.ts), and the limits both kinds share.

/** Parts described at most; the rest of a body is still stored, and formError says so. */
export const MAX_PARTS = 1000;
/** A field over this many bytes is described as a file (its bytes are then served, not inlined). */
export const MAX_FIELD_BYTES = 1024 * 1024;

/** Where one described value sits in the body, for redaction: its bytes are body[start, end). */
export interface ValueRange {
    index: number;
    name: string;
    file: boolean;
    start: number;
    end: number;
}

/** A form body, read: its description, why it is not complete (if so), and where its values are. */
export interface FormOutcome {
    form: Form;
    error?: string;
    ranges: ValueRange[];
}

/** Called with the bytes of a part as they stream past (the files route serves one part with it). */
export type ContentHook = (index: number, bytes: Buffer) => void;

/** A form body read as it streams: `push` every chunk in order, then `finish` once. Neither throws. */
export interface FormReader {
    push(chunk: Buffer): void;
    finish(): FormOutcome;
}

/** At most a few reasons, in the order found: 10,000 bad parts make one short formError, not a long one. */
export class Problems {
    private readonly list: string[] = [];
    private more = 0;

    /** Notes a reason (the same reason twice counts once). */
    add(reason: string): void {
        if (this.list.includes(reason)) return;
        if (this.list.length < 5) this.list.push(reason);
        else this.more++;
    }

    /** The reasons as one text; undefined when there are none. */
    text(): string | undefined {
        if (this.list.length === 0) return undefined;
        return this.more > 0 ? `${this.list.join('; ')}; and ${this.more} more` : this.list.join('; ');
    }
}

/** An empty description (a form that could not be read at all). */
export const emptyForm = (): Form => ({ fields: Object.create(null) as Form['fields'], files: [] });
