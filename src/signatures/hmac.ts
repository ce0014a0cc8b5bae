import { createHmac, timingSafeEqual, type Hmac } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { DigestEncoding, HmacAlgorithm } from './types.js';

/** The signed body: bytes in memory, or a stream opened on demand (an offloaded body). */
export type BodySource = { raw: Buffer } | { open: () => Promise<Readable> };

/** HMAC of `prefix + body`, streaming the body so an offloaded one is never held whole. */
export async function hmacOf(algorithm: HmacAlgorithm, secret: string, prefix: string, body: BodySource): Promise<Buffer> {
    const hmac: Hmac = createHmac(algorithm, secret);
    hmac.update(prefix, 'utf8');
    if ('raw' in body) hmac.update(body.raw);
    else for await (const chunk of await body.open()) hmac.update(chunk as Buffer);
    return hmac.digest();
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Decodes a signature as sent; undefined when it is not valid in that encoding. */
function decode(text: string, encoding: DigestEncoding): Buffer | undefined {
    if (encoding === 'hex') return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
    return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** Whether any candidate equals the digest, compared in constant time. */
export function matchesAny(digest: Buffer, candidates: readonly string[], encoding: DigestEncoding): boolean {
    let found = false;
    for (const candidate of candidates) {
        const bytes = decode(candidate, encoding);
        if (bytes && bytes.length === digest.length && timingSafeEqual(bytes, digest)) found = true;
    }
    return found;
}
