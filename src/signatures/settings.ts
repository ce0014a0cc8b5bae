import { validateHeaderName } from 'node:http';
import { ConfigError } from '../errors.js';
import { PROVIDERS, type DigestEncoding, type HmacAlgorithm, type ProviderName, type SignatureSettings } from './types.js';

const KEYS = new Set(['provider', 'headerName', 'algorithm', 'encoding', 'timestampKey', 'tolerance', 'secret']);
const ALGORITHMS: readonly HmacAlgorithm[] = ['sha1', 'sha256', 'sha512'];
const ENCODINGS: readonly DigestEncoding[] = ['hex', 'base64'];
const DEFAULT_TOLERANCE_S = 300;

const fail = (field: string, rule: string): ConfigError => new ConfigError(`Invalid input field "${field}": ${rule}`);

function headerField(raw: Record<string, unknown>, key: string): string | undefined {
    const value = raw[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw fail(`signatureVerification.${key}`, 'must be a string');
    try {
        validateHeaderName(value);
    } catch {
        throw fail(`signatureVerification.${key}`, 'must be a valid HTTP header name');
    }
    return value.toLowerCase();
}

function oneOf<T extends string>(raw: Record<string, unknown>, key: string, allowed: readonly T[], fallback: T): T {
    const value = raw[key];
    if (value === undefined || value === null || value === '') return fallback;
    if (typeof value !== 'string' || !allowed.includes(value as T)) throw fail(`signatureVerification.${key}`, `must be one of ${allowed.join(', ')}`);
    return value as T;
}

/**
 * Validates `signatureVerification` (see DECISIONS.md) and resolves its secret: the top-level
 * `signatureVerificationSecret`, else `signatureVerification.secret`. Throws ConfigError naming
 * the field; the message never contains the secret.
 */
export function parseSignatureSettings(raw: unknown, topLevelSecret: string | undefined): SignatureSettings {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw fail('signatureVerification', 'must be an object');
    const obj = raw as Record<string, unknown>;
    const unknown = Object.keys(obj).filter((k) => !KEYS.has(k));
    if (unknown.length) throw fail(`signatureVerification.${unknown[0]}`, `unknown setting (known: ${[...KEYS].join(', ')})`);
    const provider = oneOf<ProviderName>(obj, 'provider', PROVIDERS, '' as ProviderName);
    if (!provider) throw fail('signatureVerification.provider', `is required (one of ${PROVIDERS.join(', ')})`);
    const tolerance = obj.tolerance ?? DEFAULT_TOLERANCE_S;
    if (typeof tolerance !== 'number' || !Number.isInteger(tolerance) || tolerance < 0) throw fail('signatureVerification.tolerance', 'must be an integer number of seconds >= 0');
    const inner = obj.secret;
    if (inner !== undefined && typeof inner !== 'string') throw fail('signatureVerification.secret', 'must be a string');
    const secret = topLevelSecret ?? (inner || undefined);
    if (!secret) throw fail('signatureVerificationSecret', 'is required when signatureVerification is set');
    const settings: SignatureSettings = {
        provider,
        algorithm: oneOf(obj, 'algorithm', ALGORITHMS, 'sha256'),
        encoding: oneOf(obj, 'encoding', ENCODINGS, 'hex'),
        tolerance,
        secret,
    };
    const headerName = headerField(obj, 'headerName');
    if (headerName) settings.headerName = headerName;
    const timestampKey = headerField(obj, 'timestampKey');
    if (timestampKey) settings.timestampKey = timestampKey;
    return Object.freeze(settings);
}
