import { BadRequestError } from '../../errors.js';
import type { Step } from '../context.js';
import { requestView } from '../request-view.js';
import { defaultResponse, statusOverride, webhookResponse } from '../response.js';

/**
 * Prepares the answer (status from `__status` when given): the webhook's own answer when it has
 * one (its rate limit, rules, sequence, templates), else the run's default. Runs once the body's
 * kind is known, so rules see the request as it will be stored. Later steps may change the answer.
 */
export const prepareResponse: Step = (ctx) => {
    const override = statusOverride(ctx.search);
    if (Number.isNaN(override)) throw new BadRequestError('__status must be an HTTP status code between 200 and 599');
    const input = ctx.deps.config.input;
    if (ctx.answer === undefined) {
        ctx.response = defaultResponse(input, override ?? input.defaultResponseCode, ctx.webhookId);
        return;
    }
    // Taken here, synchronously, so concurrent requests each move the sequence on by one and are
    // counted exactly by the rate limit. The subject is built only when a rule reads it.
    const view = requestView(ctx);
    ctx.picked = ctx.answer.next(view.subject, ctx.deps.clock.now());
    if (ctx.picked.rule) ctx.answeredBy = ctx.picked.rule;
    ctx.response = webhookResponse(input, ctx.picked, override, ctx.webhookId, view.scope);
};
