import { BadRequestError } from '../../errors.js';
import type { Step } from '../context.js';
import { defaultResponse, statusOverride, webhookResponse } from '../response.js';

/**
 * Prepares the answer (status from `__status` when given): the webhook's own answer when it has
 * one, else the run's default. Later steps may change it.
 */
export const prepareResponse: Step = (ctx) => {
    const override = statusOverride(ctx.search);
    if (Number.isNaN(override)) throw new BadRequestError('__status must be an HTTP status code between 200 and 599');
    const input = ctx.deps.config.input;
    if (ctx.answer === undefined) {
        ctx.response = defaultResponse(input, override ?? input.defaultResponseCode, ctx.webhookId);
        return;
    }
    // Taken here, synchronously, so concurrent requests each move the sequence on by one.
    ctx.picked = ctx.answer.next();
    ctx.response = webhookResponse(input, ctx.picked, override, ctx.webhookId);
};
