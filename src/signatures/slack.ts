import { checkTimestamp, refused, single } from './headers.js';
import type { HmacScheme, Provider } from './types.js';

const HMAC: HmacScheme = { algorithm: 'sha256', encoding: 'hex' };

/**
 * Slack: `X-Slack-Signature: v0=<hex>`, HMAC-SHA256 of `v0:<ts>:<body>` with the timestamp of
 * `X-Slack-Request-Timestamp`, which must be within the tolerance.
 */
export const slack: Provider = {
    hmac: () => HMAC,
    parse(headers, settings, now) {
        const name = settings.headerName ?? 'x-slack-signature';
        const value = single(headers, name);
        if (refused(value)) return value;
        const ts = single(headers, 'x-slack-request-timestamp');
        if (refused(ts)) return ts;
        if (!value.startsWith('v0=')) return { error: `Malformed ${name} header: expected v0=<hex>` };
        const stale = checkTimestamp(ts.trim(), settings, now);
        if (stale) return stale;
        return { prefix: `v0:${ts.trim()}:`, candidates: [value.slice(3).trim()], ...HMAC };
    },
    sign(settings, now, digest) {
        const ts = String(now);
        return { [settings.headerName ?? 'X-Slack-Signature']: `v0=${digest(`v0:${ts}:`)}`, 'X-Slack-Request-Timestamp': ts };
    },
};
