import { refused, single } from './headers.js';
import type { Provider, SignedParts, SignatureRefusal } from './types.js';

const parseValue = (value: string, scheme: 'sha256' | 'sha1', name: string): SignedParts | SignatureRefusal => {
    const prefix = `${scheme}=`;
    if (!value.startsWith(prefix)) return { error: `Malformed ${name} header: expected ${prefix}<hex>` };
    return { prefix: '', candidates: [value.slice(prefix.length).trim()], algorithm: scheme, encoding: 'hex' };
};

/**
 * GitHub: `X-Hub-Signature-256: sha256=<hex>` of the body; the legacy `X-Hub-Signature: sha1=<hex>`
 * is checked only when the sha256 header is absent (GitHub sends both; sha256 wins).
 */
export const github: Provider = {
    hmac: () => ({ algorithm: 'sha256', encoding: 'hex' }),
    otherSignatureHeaders: ['x-hub-signature', 'x-hub-signature-256'],
    parse(headers, settings) {
        if (settings.headerName) {
            const value = single(headers, settings.headerName);
            if (refused(value)) return value;
            return parseValue(value, value.startsWith('sha1=') ? 'sha1' : 'sha256', settings.headerName);
        }
        if (headers['x-hub-signature-256'] || !headers['x-hub-signature']) {
            const value = single(headers, 'x-hub-signature-256');
            return refused(value) ? value : parseValue(value, 'sha256', 'x-hub-signature-256');
        }
        const legacy = single(headers, 'x-hub-signature');
        return refused(legacy) ? legacy : parseValue(legacy, 'sha1', 'x-hub-signature');
    },
    sign(settings, _now, digest) {
        return { [settings.headerName ?? 'X-Hub-Signature-256']: `sha256=${digest('')}` };
    },
};
