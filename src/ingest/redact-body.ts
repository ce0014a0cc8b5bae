import { stringifyJson } from '../lib/json-deep.js';
import { isJsonText } from '../lib/json-text.js';
import { jsonBody, type IngestContext } from './context.js';

const REDACTED = '[REDACTED]';

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
    if (paths.length === 0 || !body.raw) return;
    let value: unknown;
    if (body.kind === 'json') value = jsonBody(ctx);
    else if (body.kind === 'text' && isJsonText(body.raw)) value = JSON.parse(body.raw.toString('utf8')) as unknown;
    else return;
    if (!redactPaths(value, paths)) return;
    body.raw = Buffer.from(stringifyJson(value));
    body.size = body.raw.length;
    ctx.meta.redacted = true;
}
