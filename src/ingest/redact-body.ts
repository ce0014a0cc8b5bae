import { stringifyJson } from '../lib/json-deep.js';
import { isJsonText } from '../lib/json-text.js';
import { jsonBody, type IngestContext } from './context.js';
import { REDACTED } from '../lib/headers.js';
import type { BodyKind } from '../storage/types.js';

/** Replaces the values at `body.a.b` paths of a JSON value; returns whether anything changed. */
export function redactPaths(value: unknown, paths: readonly string[]): boolean {
    let changed = false;
    for (const path of paths) {
        const keys = path.split('.').slice(1);
        let node: unknown = value;
        for (let i = 0; i < keys.length && node !== null && typeof node === 'object'; i++) {
            const key = keys[i]!;
            if (!Object.prototype.hasOwnProperty.call(node, key)) break;
            if (i === keys.length - 1) {
                (node as Record<string, unknown>)[key] = REDACTED;
                changed = true;
            } else node = (node as Record<string, unknown>)[key];
        }
    }
    return changed;
}

/**
 * Applies redactBodyPaths before the body is stored: the redacted form is all that is kept, so the
 * secret never reaches storage. This covers JSON kept as text too (parsing off, or nested past
 * MAX_JSON_DEPTH): the secret is as secret there. JSON.parse is iterative and stringifyJson falls
 * back to an explicit stack, so no depth makes this throw.
 */
export function redactBody(ctx: IngestContext, paths: readonly string[]): void {
    const { body } = ctx;
    if (!body.raw) return;
    // A form's redacted values were rewritten in its bytes when it was described (forms/describe.ts).
    const redacted = formRedacted(ctx) ?? redactedBytes(body.kind, body.raw, paths, () => jsonBody(ctx));
    if (!redacted) return;
    body.raw = redacted;
    body.size = redacted.length;
    ctx.meta.redacted = true;
}

/**
 * The bytes of a form body with its redacted fields rewritten, while the body is still the one that
 * was described (a custom script may have replaced it since); undefined when nothing was rewritten.
 */
export function formRedacted(ctx: IngestContext): Buffer | undefined {
    return ctx.form?.redacted && !ctx.meta.scriptChangedBody ? ctx.form.redacted : undefined;
}

/**
 * The bytes of a JSON body (kind json, or JSON kept as text) with `paths` redacted; undefined when
 * it is not JSON or nothing matched. `parsed` supplies an already built value of a json body.
 */
export function redactedBytes(kind: BodyKind, raw: Buffer, paths: readonly string[], parsed?: () => unknown): Buffer | undefined {
    if (paths.length === 0) return undefined;
    let value: unknown;
    if (kind === 'json') value = parsed ? parsed() : (JSON.parse(raw.toString('utf8')) as unknown);
    else if (kind === 'text' && isJsonText(raw)) value = JSON.parse(raw.toString('utf8')) as unknown;
    else return undefined;
    return redactPaths(value, paths) ? Buffer.from(stringifyJson(value)) : undefined;
}
