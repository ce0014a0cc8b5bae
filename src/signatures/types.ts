/** The providers `signatureVerification.provider` may name. */
export const PROVIDERS = ['stripe', 'shopify', 'github', 'slack', 'custom'] as const;
export type ProviderName = (typeof PROVIDERS)[number];
export type HmacAlgorithm = 'sha1' | 'sha256' | 'sha512';
export type DigestEncoding = 'hex' | 'base64';

/** Validated signature settings with their defaults filled in, secret included. */
export interface SignatureSettings {
    provider: ProviderName;
    /** Lower-case header override (custom: the signature header). */
    headerName?: string;
    algorithm: HmacAlgorithm;
    encoding: DigestEncoding;
    /** Lower-case name of the header carrying a Unix timestamp (custom only). */
    timestampKey?: string;
    /** Seconds a timestamp may be off, either way; 0 turns the check off. */
    tolerance: number;
    secret: string;
}

/** Request headers as arrays of every value received (node's `headersDistinct`). */
export type DistinctHeaders = Record<string, string[] | undefined>;

/**
 * What a provider reads from the headers: the bytes signed before the body, the signature
 * candidates (any one may match: Stripe sends several `v1` during secret rotation) and the HMAC.
 */
export interface SignedParts {
    prefix: string;
    candidates: string[];
    algorithm: HmacAlgorithm;
    encoding: DigestEncoding;
}

/** A header problem or a timestamp out of tolerance: verification fails without hashing. */
export interface SignatureRefusal {
    error: string;
}

/** The keyed hash of a scheme and how its digest is written in the header. */
export interface HmacScheme {
    algorithm: HmacAlgorithm;
    encoding: DigestEncoding;
}

/** One provider: how to read its headers, and how to sign (for re-signed replays). */
export interface Provider {
    /** The HMAC this provider signs with; `parse` reports the same one (github's legacy sha1 header aside). */
    hmac(settings: SignatureSettings): HmacScheme;
    /** Lower-case names of signature headers `parse` may read beyond those `sign` writes; a re-sign drops them as stale. */
    otherSignatureHeaders?: readonly string[];
    /** Reads the headers; `now` is epoch seconds. Never throws. */
    parse(headers: DistinctHeaders, settings: SignatureSettings, now: number): SignedParts | SignatureRefusal;
    /** The headers that sign `digest` of `prefix + body`: `sign` computes the digest for a prefix. */
    sign(settings: SignatureSettings, now: number, digest: (prefix: string) => string): Record<string, string>;
}

/** The outcome recorded on the event. */
export interface SignatureResult {
    valid: boolean;
    provider: ProviderName;
    error?: string;
}
