import { AppError } from '../../errors.js';
import { cidrRange, ipInRanges } from '../../lib/ip.js';
import type { Step } from '../context.js';

/** Step 2: with `allowedIps` set, only those sources may send. */
export function createCheckIp(allowedIps: readonly string[]): Step {
    const ranges = allowedIps.map((entry) => {
        const range = cidrRange(entry);
        if (!range) throw new Error(`allowedIps: "${entry}" is not an IP address or CIDR block`);
        return range;
    });
    return (ctx) => {
        if (ranges.length > 0 && !ipInRanges(ctx.clientIp, ranges)) {
            throw new AppError(403, `Source IP ${ctx.clientIp} is not allowed to send to this webhook`);
        }
    };
}
