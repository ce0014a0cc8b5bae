import type { Form } from '../../api/capture.js';
import { describeForm } from '../../forms/describe.js';
import { readForm } from '../../forms/reader.js';
import { emptyForm } from '../../forms/types.js';
import { BODY, FORM_ERROR, FORM_FIELDS, FORM_FILES, FORM_SOURCE, type EventRecord } from './rows.js';

/** A form the writer described, as it goes back to the capture thread. */
export interface DescribedColumns {
    form: Form;
    error?: string;
}

const NO_REDACTION: ReadonlySet<string> = new Set();

/**
 * Describes the form bodies ingest left to the store (records with a formSource), on the writer
 * thread: fills their form columns in place and returns each description by the record's index in
 * `records` (undefined when none had one). Ingest leaves only bodies held in memory, with no
 * redactBodyPaths, no script and no rules that would read the form before the answer, so the bytes
 * stored are the bytes received, and masking is all there is to apply.
 */
export function describeRecordForms(records: EventRecord[]): (DescribedColumns | null)[] | undefined {
    let out: (DescribedColumns | null)[] | undefined;
    records.forEach((record, i) => {
        const source = record[FORM_SOURCE];
        const body = record[BODY];
        if (!source || !body) return;
        record[FORM_SOURCE] = null;
        const [contentType, mask] = source;
        const described = describeBytes(contentType, Buffer.from(body.buffer, body.byteOffset, body.byteLength), mask === 1);
        if (!described) return;
        record[FORM_FIELDS] = JSON.stringify(described.form.fields);
        record[FORM_FILES] = JSON.stringify(described.form.files);
        record[FORM_ERROR] = described.error ?? null;
        (out ??= records.map(() => null))[i] = described;
    });
    return out;
}

/** The description of one body; a reader that throws (it should not) still leaves the event stored, with the reason. */
function describeBytes(contentType: string, body: Buffer, mask: boolean): DescribedColumns | undefined {
    try {
        const outcome = readForm(contentType, body);
        if (!outcome) return undefined;
        const { form, error } = describeForm(outcome, contentType, undefined, { mask, redact: NO_REDACTION });
        return error === undefined ? { form } : { form, error };
    } catch (error) {
        return { form: emptyForm(), error: `the form could not be read: ${(error as Error).message}` };
    }
}
