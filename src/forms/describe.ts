import { createHash } from 'node:crypto';
import type { Form } from '../api/capture.js';
import { MASKED_HEADERS, REDACTED } from '../lib/headers.js';
import { formKindOf } from './kind.js';
import type { FormOutcome, ValueRange } from './types.js';

// Masking and redaction of a form, as for JSON bodies: under maskSensitiveData, fields whose names are
// credentials are `[REDACTED]` in the description only (a body is never masked by it); a field named
// by redactBodyPaths (`body.<name>`) is redacted in the description and in the stored bytes, where its
// value is rewritten in place (the rest of the bytes stay as received), so the raw secret is never kept.

/** Field names that hold credentials (any letter case): the masked header names and the usual secret names. */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([...MASKED_HEADERS, 'password', 'passwd', 'secret', 'token', 'api_key', 'apikey', 'access_token', 'client_secret']);

const REDACTED_SHA256 = createHash('sha256').update(REDACTED).digest('hex');
/** The placeholder as the bytes of each kind of form carry it. */
const PLACEHOLDER = { multipart: Buffer.from(REDACTED), urlencoded: Buffer.from(encodeURIComponent(REDACTED)) };

/** A form as stored: its description, why it is incomplete, and the bytes to store when redaction rewrote them. */
export interface DescribedForm {
    form: Form;
    error?: string;
    /** The body with redacted values rewritten; absent when nothing was (or the body is not in memory). */
    redacted?: Buffer;
}

/** The field names `redactBodyPaths` names: `body.<name>`, the rest of the path taken whole (dots and all). */
export function redactedFieldNames(paths: readonly string[]): ReadonlySet<string> {
    return new Set(paths.filter((p) => p.startsWith('body.') && p.length > 5).map((p) => p.slice(5)));
}

/** What masking and redaction apply to a form. */
export interface FormMasking {
    mask: boolean;
    redact: ReadonlySet<string>;
}

/**
 * The form as it is stored: masked and redacted. `raw` is the body when it is held in memory; a body
 * streamed to the payload store (above the offload threshold) is stored as received, as a JSON body
 * there is, and only its description is redacted.
 */
export function describeForm(outcome: FormOutcome, contentType: string, raw: Buffer | undefined, masking: FormMasking): DescribedForm {
    const { form } = outcome;
    const described: DescribedForm = { form };
    if (outcome.error !== undefined) described.error = outcome.error;
    const hidden = (name: string): boolean => masking.redact.has(name) || (masking.mask && CREDENTIAL_NAMES.has(name.toLowerCase()));
    for (const name of Object.keys(form.fields)) {
        if (hidden(name)) form.fields[name] = form.fields[name]!.map((v) => (v === '' ? v : REDACTED));
    }
    if (masking.redact.size === 0 || !raw) return described;
    const ranges = outcome.ranges.filter((r) => masking.redact.has(r.name) && r.end > r.start);
    if (ranges.length === 0) return described;
    described.redacted = rewrite(raw, ranges, PLACEHOLDER[formKindOf(contentType) ?? 'multipart']);
    for (const file of form.files) {
        if (!masking.redact.has(file.field) || file.size === 0) continue;
        file.size = REDACTED.length;
        file.sha256 = REDACTED_SHA256;
    }
    return described;
}

/** `raw` with each range's bytes replaced by `placeholder` (ranges in order, not overlapping). */
function rewrite(raw: Buffer, ranges: readonly ValueRange[], placeholder: Buffer): Buffer {
    const pieces: Buffer[] = [];
    let from = 0;
    for (const r of ranges) {
        pieces.push(raw.subarray(from, r.start), placeholder);
        from = r.end;
    }
    pieces.push(raw.subarray(from));
    return Buffer.concat(pieces);
}
