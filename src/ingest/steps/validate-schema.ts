import { Ajv } from 'ajv';
import { AppError } from '../../errors.js';
import { jsonBody, type Step } from '../context.js';

/** Step 7: with `jsonSchema` set, the payload must be JSON that satisfies it; else 400 with details. */
export function createValidateSchema(schema: Record<string, unknown> | undefined): Step {
    if (!schema) return () => undefined;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    return (ctx) => {
        let value = jsonBody(ctx);
        if (value === undefined && ctx.body.raw && ctx.body.kind === 'text') {
            try {
                value = JSON.parse(ctx.body.raw.toString('utf8')) as unknown;
            } catch {
                value = undefined;
            }
        }
        if (value === undefined) {
            throw new AppError(400, 'Payload does not match the JSON Schema', { details: [{ path: '', message: 'body must be JSON' }] });
        }
        if (!validate(value)) {
            const details = (validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'is invalid' }));
            throw new AppError(400, 'Payload does not match the JSON Schema', { details });
        }
    };
}
