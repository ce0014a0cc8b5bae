import { createHmac } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { providers } from './providers.js';
import type { SignatureSettings } from './types.js';

/** Lower-case names of every header a provider signs with or reads a signature from, so stale copies can be dropped. */
function signatureHeaderNames(settings: SignatureSettings): string[] {
    const provider = providers[settings.provider];
    const names = Object.keys(provider.sign(settings, 0, () => '')).map((n) => n.toLowerCase());
    return [...names, ...(provider.otherSignatureHeaders ?? [])];
}

/**
 * Signs `body` (the bytes actually sent) as the configured provider would, with a fresh timestamp
 * from `clock` for the timestamped schemes. Returns `headers` without any stale signature header
 * (any letter case) plus the new ones, so the receiver's own library accepts the request.
 */
export function resign(settings: SignatureSettings, body: Buffer, headers: Readonly<Record<string, string>>, clock: Pick<Clock, 'now'>): Record<string, string> {
    const now = Math.floor(clock.now() / 1000);
    const { algorithm, encoding } = providers[settings.provider].hmac(settings);
    const digest = (prefix: string): string => createHmac(algorithm, settings.secret).update(prefix, 'utf8').update(body).digest(encoding);
    const stale = new Set(signatureHeaderNames(settings));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (!stale.has(name.toLowerCase())) out[name] = value;
    return { ...out, ...providers[settings.provider].sign(settings, now, digest) };
}
