import { NotFoundError } from '../../errors.js';
import type { Step } from '../context.js';

/** Step 1: the webhook must exist and be unexpired. */
export const findWebhook: Step = (ctx) => {
    const found = ctx.deps.webhooks.findActive(ctx.webhookId);
    if (!found) throw new NotFoundError(`Webhook '${ctx.webhookId}' not found or expired`);
    ctx.webhook = found.webhook;
    // Most webhooks have no answer of their own: one property check, nothing else.
    if (found.answer !== undefined) ctx.answer = found.answer;
};
