import { forwardedBy, forwardJob } from '../../delivery/forwarder.js';
import { AppError } from '../../errors.js';
import type { IngestDeps, Step } from '../context.js';

/**
 * Step 10: refuses a request that this very instance forwarded (a loop through `forwardUrl`) with
 * 422, which is stored; otherwise, with `forwardUrl` set, prepares the request to forward. The
 * capture joins the forwarding backlog in the commit that stores it and goes out in the background:
 * the sender's answer never waits for the target.
 */
export function createForward(deps: IngestDeps): Step {
    const { forwarder } = deps;
    // Without forwardUrl this instance never sends its marker, so no request can carry it. The
    // marker is unique per running service, so two instances may forward to each other; a chain
    // A → B → A is caught too, because each hop appends its id.
    if (!forwarder) return () => undefined;
    return (ctx) => {
        if (forwardedBy(ctx.req.headers).includes(forwarder.instanceId)) {
            throw new AppError(422, 'Forwarding loop detected: this request was forwarded by this service (forwardUrl points back at it)');
        }
        // The bytes as received (before any redactBodyPaths, which only shapes what is stored).
        ctx.forward = forwardJob(ctx.logId, (ctx.req.method ?? 'GET').toUpperCase(), ctx.req.headers, ctx.body, forwarder.instanceId);
    };
}
