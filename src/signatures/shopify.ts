import { refused, single } from './headers.js';
import type { Provider } from './types.js';

/** Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body. No timestamp. */
export const shopify: Provider = {
    parse(headers, settings) {
        const value = single(headers, settings.headerName ?? 'x-shopify-hmac-sha256');
        if (refused(value)) return value;
        return { prefix: '', candidates: [value.trim()], algorithm: 'sha256', encoding: 'base64' };
    },
    sign(settings, _now, digest) {
        return { [settings.headerName ?? 'X-Shopify-Hmac-Sha256']: digest('') };
    },
};
