import { describeForm, redactedFieldNames } from '../../forms/describe.js';
import { openFormReader } from '../../forms/reader.js';
import type { Step } from '../context.js';

/**
 * Before the body is read: a form body (multipart/form-data, urlencoded) gets a reader, which the
 * body step feeds every chunk as it arrives, so a body streamed to the payload store is read on its
 * way there, never whole. Any other body costs one look at its Content-Type.
 */
export const openForm: Step = (ctx) => {
    const reader = openFormReader(ctx.req.headers['content-type']);
    if (reader) ctx.formReader = reader;
};

/**
 * Once the body is in: the form's description (`form`, `formError`), masked and redacted as a JSON
 * body is. The body itself stays as received; the bytes redaction rewrites are stored instead of it
 * only once the event is (record.ts), so signatures, the script and forwarding see what was sent.
 */
export function createDescribeForm(input: { readonly maskSensitiveData: boolean; readonly redactBodyPaths: readonly string[] }): Step {
    const masking = { mask: input.maskSensitiveData, redact: redactedFieldNames(input.redactBodyPaths) };
    return (ctx) => {
        const reader = ctx.formReader;
        if (!reader) return;
        delete ctx.formReader;
        ctx.form = describeForm(reader.finish(), String(ctx.req.headers['content-type'] ?? ''), ctx.body.raw, masking);
    };
}
