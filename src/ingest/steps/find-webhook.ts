import { NotFoundError } from '../../errors.js';
import type { Step } from '../context.js';

/** Step 1: the webhook must exist and be unexpired. */
export const findWebhook: Step = (ctx) => {
    const webhook = ctx.deps.webhooks.getActive(ctx.webhookId);
    if (!webhook) throw new NotFoundError(`Webhook '${ctx.webhookId}' not found or expired`);
    ctx.webhook = webhook;
};
