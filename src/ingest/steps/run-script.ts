import { ScriptRunner } from '../../sandbox/runner.js';
import type { IngestContext, Step } from '../context.js';
import { payloadKey, putBlob } from '../../storage/blob-store.js';
import { formRedacted, redactedBytes } from '../redact-body.js';
import { applyAnswer, applyStored, scriptInput } from '../script-event.js';

/**
 * Keeps the sender's bytes as received when the script replaces the stored body: they go to the
 * blob store under the event's payload key (already there when offloaded), which the payload
 * route and replay read. Redacted paths are redacted there too: the raw secret is never kept.
 */
async function keepOriginal(ctx: IngestContext): Promise<string> {
    const key = payloadKey(ctx.logId);
    if (ctx.body.kind === 'offloaded') return ctx.body.blobKey ?? key;
    const raw = ctx.body.raw ?? Buffer.alloc(0);
    const bytes = formRedacted(ctx) ?? redactedBytes(ctx.body.kind, raw, ctx.deps.config.input.redactBodyPaths) ?? raw;
    await putBlob(ctx.deps.blobs, key, String(ctx.req.headers['content-type'] ?? ''), bytes);
    return key;
}

/** Stores the script's body: structured values as JSON, strings as text. */
async function replaceBody(ctx: IngestContext, body: unknown): Promise<void> {
    const blobKey = await keepOriginal(ctx);
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
    ctx.body = { kind: typeof body === 'string' ? 'text' : 'json', size: ctx.body.size, raw: Buffer.from(text, 'utf8'), blobKey };
    if (typeof body === 'string') delete ctx.json;
    else ctx.json = { value: JSON.parse(text) as unknown };
    ctx.meta.scriptChangedBody = true;
}

/**
 * Step 9: runs `customScript` in the sandbox. It may shape the answer and what is stored; a throw,
 * timeout or memory blow-up is logged and recorded (`meta.scriptError`), and the pipeline goes on
 * with the event as it was.
 */
export function createRunScript(code: string | undefined): Step {
    if (!code) return () => undefined;
    const runner = new ScriptRunner(code);
    return async (ctx) => {
        const { log } = ctx.deps;
        const input = scriptInput(ctx);
        const outcome = await runner.run(input, (level, line) => log[level](`customScript: ${line}`, { eventId: ctx.logId, webhookId: ctx.webhookId }));
        const problems: string[] = [];
        if (!outcome.ok) problems.push(outcome.error);
        else if (typeof outcome.event !== 'object' || outcome.event === null || Array.isArray(outcome.event)) problems.push('event must stay an object; changes ignored');
        else {
            const after = outcome.event as Record<string, unknown>;
            problems.push(...applyAnswer(ctx, input.event, after));
            problems.push(...applyStored(ctx, input.event, after));
            if (outcome.bodyChanged) await replaceBody(ctx, after.body);
        }
        if (problems.length > 0) {
            ctx.meta.scriptError = problems.join('; ');
            log.warn('customScript problem', { eventId: ctx.logId, webhookId: ctx.webhookId, error: ctx.meta.scriptError });
        }
    };
}
