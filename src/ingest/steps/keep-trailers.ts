import { credentialRuleOf, storedHeaders } from '../record.js';
import type { Step } from '../context.js';

/**
 * After the body: a chunked request's trailer fields (which arrive after the last chunk) are kept
 * on the event as `meta.trailers`, masked like headers, so no part of the request is dropped.
 */
export function createKeepTrailers(input: { readonly maskSensitiveData: boolean; readonly authKey?: string | undefined }): Step {
    const rule = credentialRuleOf(input);
    const mask = input.maskSensitiveData;
    return (ctx) => {
        // rawTrailers is a plain array; `trailers` is built only when there is something to keep.
        if (ctx.req.rawTrailers.length === 0) return;
        ctx.meta.trailers = storedHeaders(ctx.req.trailers, mask, rule).headers;
    };
}
