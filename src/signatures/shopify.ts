import { refused, single } from './headers.js';
import type { HmacScheme, Provider } from './types.js';

const HMAC: HmacScheme = { algorithm: 'sha256', encoding: 'base64' };

/** Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body. No timestamp. */
export const shopify: Provider = {
    hmac: () => HMAC,
    parse(headers, settings) {
        const value = single(headers, settings.headerName ?? 'x-shopify-hmac-sha256');
        if (refused(value)) return value;
        return { prefix: '', candidates: [value.trim()], ...HMAC };
    },
    sign(settings, _now, digest) {
        return { [settings.headerName ?? 'X-Shopify-Hmac-Sha256']: digest('') };
    },
};
