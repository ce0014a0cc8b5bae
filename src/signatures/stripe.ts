import { checkTimestamp, refused, single } from './headers.js';
import type { HmacScheme, Provider } from './types.js';

const HMAC: HmacScheme = { algorithm: 'sha256', encoding: 'hex' };

/**
 * Stripe: `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>...]`, HMAC-SHA256 of `<t>.<body>`.
 * Every `v1` is a candidate (Stripe sends one per active secret while rolling them).
 */
export const stripe: Provider = {
    hmac: () => HMAC,
    parse(headers, settings, now) {
        const name = settings.headerName ?? 'stripe-signature';
        const value = single(headers, name);
        if (refused(value)) return value;
        let t: string | undefined;
        const candidates: string[] = [];
        for (const part of value.split(',')) {
            const eq = part.indexOf('=');
            const key = part.slice(0, eq).trim();
            const v = part.slice(eq + 1).trim();
            if (key === 't') {
                if (t !== undefined) return { error: `Malformed ${name} header: more than one t=` };
                t = v;
            } else if (key === 'v1') candidates.push(v);
        }
        if (t === undefined) return { error: `Malformed ${name} header: no t= timestamp` };
        if (candidates.length === 0) return { error: `Malformed ${name} header: no v1= signature` };
        const stale = checkTimestamp(t, settings, now);
        if (stale) return stale;
        return { prefix: `${t}.`, candidates, ...HMAC };
    },
    sign(settings, now, digest) {
        const t = String(now);
        return { [settings.headerName ?? 'Stripe-Signature']: `t=${t},v1=${digest(`${t}.`)}` };
    },
};
