import { createHmac } from 'node:crypto';
import type { Clock } from '../lib/clock.js';
import { custom } from './custom.js';
import { github } from './github.js';
import { shopify } from './shopify.js';
import { slack } from './slack.js';
import { stripe } from './stripe.js';
import type { Provider, ProviderName, SignatureSettings } from './types.js';

const signers: Record<ProviderName, Provider> = { stripe, shopify, github, slack, custom };

/** Lower-case names of every header a provider signs with, so stale copies can be dropped. */
function signatureHeaderNames(settings: SignatureSettings): string[] {
    const names = Object.keys(signers[settings.provider].sign(settings, 0, () => '')).map((n) => n.toLowerCase());
    if (settings.provider === 'github') names.push('x-hub-signature', 'x-hub-signature-256');
    return names;
}

/**
 * Signs `body` (the bytes actually sent) as the configured provider would, with a fresh timestamp
 * from `clock` for the timestamped schemes. Returns `headers` without any stale signature header
 * (any letter case) plus the new ones, so the receiver's own library accepts the request.
 */
export function resign(settings: SignatureSettings, body: Buffer, headers: Readonly<Record<string, string>>, clock: Pick<Clock, 'now'>): Record<string, string> {
    const now = Math.floor(clock.now() / 1000);
    const algorithm = settings.provider === 'custom' ? settings.algorithm : 'sha256';
    const encoding = settings.provider === 'shopify' ? 'base64' : settings.provider === 'custom' ? settings.encoding : 'hex';
    const digest = (prefix: string): string => createHmac(algorithm, settings.secret).update(prefix, 'utf8').update(body).digest(encoding);
    const stale = new Set(signatureHeaderNames(settings));
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (!stale.has(name.toLowerCase())) out[name] = value;
    return { ...out, ...signers[settings.provider].sign(settings, now, digest) };
}
