import { checkTimestamp, refused, single } from './headers.js';
import type { Provider } from './types.js';

/** The signature header of the custom scheme when `headerName` is not set. */
export const CUSTOM_DEFAULT_HEADER = 'x-signature';

/**
 * Custom: the HMAC (`algorithm`, `encoding`) of the body in `headerName`, optionally written as
 * `<algorithm>=<digest>`. With `timestampKey`, that header holds a Unix timestamp (seconds) that
 * must be within the tolerance, and the signed bytes are `<timestamp>.<body>`.
 */
export const custom: Provider = {
    hmac: (settings) => ({ algorithm: settings.algorithm, encoding: settings.encoding }),
    parse(headers, settings, now) {
        const name = settings.headerName ?? CUSTOM_DEFAULT_HEADER;
        const value = single(headers, name);
        if (refused(value)) return value;
        let prefix = '';
        if (settings.timestampKey) {
            const ts = single(headers, settings.timestampKey);
            if (refused(ts)) return ts;
            const stale = checkTimestamp(ts.trim(), settings, now);
            if (stale) return stale;
            prefix = `${ts.trim()}.`;
        }
        const labelled = `${settings.algorithm}=`;
        const digest = value.startsWith(labelled) ? value.slice(labelled.length) : value;
        return { prefix, candidates: [digest.trim()], ...custom.hmac(settings) };
    },
    sign(settings, now, digest) {
        const headers: Record<string, string> = {};
        let prefix = '';
        if (settings.timestampKey) {
            headers[settings.timestampKey] = String(now);
            prefix = `${now}.`;
        }
        headers[settings.headerName ?? CUSTOM_DEFAULT_HEADER] = digest(prefix);
        return headers;
    },
};
