import { boundaryOf, formKindOf } from './kind.js';
import { MultipartReader } from './multipart.js';
import { emptyForm, type ContentHook, type FormOutcome, type FormReader } from './types.js';
import { UrlencodedReader } from './urlencoded.js';

/** A reader of a form that cannot be read at all (a multipart Content-Type without a boundary). */
function unreadable(error: string): FormReader {
    return { push: () => undefined, finish: (): FormOutcome => ({ form: emptyForm(), error, ranges: [] }) };
}

/**
 * A reader for a body of `contentType`, or undefined when it is no form (one cheap test decides).
 * `hook` gets each part's bytes as they stream past (the files route).
 */
export function openFormReader(contentType: string | undefined, hook?: ContentHook): FormReader | undefined {
    const kind = formKindOf(contentType);
    if (kind === undefined) return undefined;
    if (kind === 'urlencoded') return new UrlencodedReader(hook);
    const found = boundaryOf(contentType!);
    return 'error' in found ? unreadable(found.error) : new MultipartReader(found.parsed, found.boundary, hook);
}

/** Reads a whole body held in memory. */
export function readForm(contentType: string | undefined, body: Buffer): FormOutcome | undefined {
    const reader = openFormReader(contentType);
    if (!reader) return undefined;
    reader.push(body);
    return reader.finish();
}
