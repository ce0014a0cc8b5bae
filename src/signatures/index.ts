import { refused } from './headers.js';
import { hmacOf, matchesAny, type BodySource } from './hmac.js';
import { providers } from './providers.js';
import type { DistinctHeaders, SignatureResult, SignatureSettings } from './types.js';

export type { BodySource } from './hmac.js';
export type { SignatureResult, SignatureSettings } from './types.js';
export { resign } from './resign.js';
export { parseSignatureSettings } from './settings.js';
export { providers } from './providers.js';

/**
 * Verifies a request's signature over the body bytes as received. Never throws: an unreadable
 * body or header problem is a failed result with its reason (never the secret, never a digest).
 */
export async function verifySignature(settings: SignatureSettings, headers: DistinctHeaders, body: BodySource, nowMs: number): Promise<SignatureResult> {
    const provider = settings.provider;
    const parts = providers[provider].parse(headers, settings, Math.floor(nowMs / 1000));
    if (refused(parts)) return { valid: false, provider, error: parts.error };
    let digest: Buffer;
    try {
        digest = await hmacOf(parts.algorithm, settings.secret, parts.prefix, body);
    } catch {
        return { valid: false, provider, error: 'The body could not be read for verification' };
    }
    return matchesAny(digest, parts.candidates, parts.encoding) ? { valid: true, provider } : { valid: false, provider, error: 'Signature mismatch' };
}
