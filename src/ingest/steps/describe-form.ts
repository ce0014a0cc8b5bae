import { describeForm, redactedFieldNames } from '../../forms/describe.js';
import { formKindOf } from '../../forms/kind.js';
import { openFormReader, readForm } from '../../forms/reader.js';
import type { IngestContext, Step } from '../context.js';

type FormInput = { readonly maskSensitiveData: boolean; readonly redactBodyPaths: readonly string[]; readonly customScript?: string | undefined };

/**
 * Before the body is read: where a form body is read. Nothing before the answer reads a form but a
 * script and a webhook's rules, and redaction rewrites its bytes before they are stored; without
 * them, a store that describes forms itself (SQLite, on its writer thread) gets the body held in
 * memory as it is, so the capture thread never parses it. Otherwise, or once a body goes to the
 * payload store, a reader is fed every chunk as it arrives, so an offloaded body is read on its way
 * there, never whole. Any other body costs one look at its Content-Type.
 */
export function createOpenForm(input: FormInput): Step {
    const mayLeave = !input.customScript && input.redactBodyPaths.length === 0;
    return (ctx) => {
        const contentType = ctx.req.headers['content-type'];
        if (formKindOf(contentType) === undefined) return;
        if (mayLeave && ctx.deps.events.describesForms === true && !ctx.answer?.hasRules) ctx.formLeft = 'unread';
        else openFormReaderOf(ctx);
    };
}

/**
 * Gives a form body its reader: before the body is read, or, for a form left to the store whose
 * body goes to the payload store after all, when it starts to go (it must be read on the way).
 */
export function openFormReaderOf(ctx: IngestContext): { push(chunk: Buffer): void } {
    return (ctx.formReader = openFormReader(ctx.req.headers['content-type'])!);
}

/**
 * Once the body is in: the form's description (`form`, `formError`), masked and redacted as a JSON
 * body is; or, for a form left to the store and held in memory, the mark that hands it over
 * (record.ts). The body itself stays as received; the bytes redaction rewrites are stored instead
 * of it only once the event is (record.ts), so signatures, the script and forwarding see what was sent.
 */
export function createDescribeForm(input: FormInput): Step {
    const masking = { mask: input.maskSensitiveData, redact: redactedFieldNames(input.redactBodyPaths) };
    return (ctx) => {
        const contentType = String(ctx.req.headers['content-type'] ?? '');
        const reader = ctx.formReader;
        if (reader) {
            delete ctx.formReader;
            delete ctx.formLeft;
            ctx.form = describeForm(reader.finish(), contentType, ctx.body.raw, masking);
            return;
        }
        if (ctx.formLeft !== 'unread') return;
        // An empty body is not handed over (the store gets no bytes): described here, as cheaply.
        if (ctx.body.raw && ctx.body.size > 0) ctx.formLeft = 'store';
        else {
            delete ctx.formLeft;
            ctx.form = describeForm(readForm(contentType, Buffer.alloc(0))!, contentType, undefined, masking);
        }
    };
}
