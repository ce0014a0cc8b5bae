import { createAuthCheck } from '../../http/auth.js';
import type { Step } from '../context.js';

/** Step 3: with `authKey` set, ingest needs the key like every protected route. */
export function createAuthenticate(authKey: string | undefined): Step {
    const check = createAuthCheck(authKey);
    return (ctx) => check(ctx.req, ctx.search);
}
