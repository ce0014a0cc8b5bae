import { validationError, type AppError } from '../../errors.js';
import { compileJsonSchema } from '../../lib/json-schema.js';
import { jsonBody, type IngestContext, type Step } from '../context.js';

/** Methods that normally carry no body: an empty one is not checked against the schema. */
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

const mismatch = (details: { path: string; message: string }[]): AppError => validationError('Payload does not match the JSON Schema', details);

/** The body as a JSON value, whatever parsing decided to store; undefined when it is not JSON. */
function valueOf(ctx: IngestContext): unknown {
    const value = jsonBody(ctx);
    if (value !== undefined || ctx.body.kind !== 'text' || !ctx.body.raw) return value;
    try {
        return JSON.parse(ctx.body.raw.toString('utf8')) as unknown;
    } catch {
        return undefined;
    }
}

/**
 * Step 7: with `jsonSchema` set, the payload must be JSON that satisfies it, else 400 with
 * `details`. Not checked: bodies above the offload threshold (they are streamed to the blob store,
 * never held whole; `meta.schemaSkipped` says so) and empty bodies of GET/HEAD/OPTIONS/DELETE.
 */
export function createValidateSchema(schema: Record<string, unknown> | undefined): Step {
    if (!schema) return () => undefined;
    const validate = compileJsonSchema(schema);
    return (ctx) => {
        if (ctx.body.kind === 'offloaded') {
            ctx.meta.schemaSkipped = 'body above the offload threshold is not validated';
            return;
        }
        if (ctx.body.kind === 'empty' && BODYLESS.has(ctx.req.method ?? '')) return;
        const value = valueOf(ctx);
        if (value === undefined) throw mismatch([{ path: '/', message: 'body must be JSON' }]);
        if (!validate(value)) {
            throw mismatch((validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'is invalid' })));
        }
    };
}
