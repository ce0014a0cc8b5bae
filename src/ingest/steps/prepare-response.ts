import { BadRequestError } from '../../errors.js';
import type { Step } from '../context.js';
import { defaultResponse, statusOverride } from '../response.js';

/** Prepares the default answer (status from `__status` when given); later steps may change it. */
export const prepareResponse: Step = (ctx) => {
    const override = statusOverride(ctx.search);
    if (Number.isNaN(override)) throw new BadRequestError('__status must be an HTTP status code between 200 and 599');
    ctx.response = defaultResponse(ctx.deps.config.input, override ?? ctx.deps.config.input.defaultResponseCode, ctx.webhookId);
};
