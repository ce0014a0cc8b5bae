import { AppError, ConfigError } from '../../errors.js';
import { IpMatcher } from '../../lib/ip.js';
import type { Step } from '../context.js';

/** Step 2: with `allowedIps` set, only those sources may send. */
export function createCheckIp(allowedIps: readonly string[]): Step {
    const built = IpMatcher.from(allowedIps);
    // Config parsing refuses bad entries first; this guards callers that skip it.
    if ('invalid' in built) throw new ConfigError(`Invalid input field "allowedIps": "${built.invalid}" is not an IP address or CIDR block`);
    const { matcher } = built;
    if (matcher.empty) return () => undefined;
    return (ctx) => {
        if (!matcher.matches(ctx.clientIp)) {
            throw new AppError(403, `Source IP ${ctx.clientIp} is not allowed to send to this webhook`);
        }
    };
}
